/** Findings: a run's anomalies, each linked to its samples (docs/findings.md). */
export { findingToJson, findRunFindings, judgeRun, measureSteps, sortFindings } from './find.ts';
export type { FindingsOptions, FindingsProgress, FindingsResult, StepMeasures } from './find.ts';
export { findingRules } from './registry.ts';
export { type Finding, type FindingKind, findingKinds } from './types.ts';
