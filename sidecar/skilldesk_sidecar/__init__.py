"""SkillDesk's DSPy sidecar: executes and optimizes shipped DSPy templates over JSON lines on stdio.

Every LM call goes back to the main process (``lm.complete``); the sidecar holds no API keys and
never opens a network connection itself.
"""

__version__ = "0.1.0"
