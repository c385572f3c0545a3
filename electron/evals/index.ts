// Evals: a skill's output and trigger evals (the `skills/eval*` channels), the assertions a run is
// checked against, the train/validation split optimizing a DSPy module with its evals uses, and
// the description loop over trigger evals (`skills/improve-triggers`). The dispatcher runs skills
// for them through callbacks: nothing here imports dispatch/ or chat/.
export * from './assertions.js';
export * from './eval-handlers.js';
export * from './improve-triggers.js';
export * from './optimize-evals.js';
