// Command modules register themselves on import (see `addCommands` in main.ts).
// Each capability adds one line here.
import './sandbox-commands.js';
import './llm-commands.js';
import './sidecar-commands.js';
import './dispatch-commands.js';
import './serve-commands.js';
import './chat-commands.js';
import './optimize-commands.js';
