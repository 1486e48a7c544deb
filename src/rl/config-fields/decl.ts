// The shape of one run-config field's declaration (config-fields.ts composes the table from the group files here).

export type FieldGroup =
  | 'Run'
  | 'Sampling'
  | 'Optimisation'
  | 'Objective'
  | 'Data and reward'
  | 'Curriculum'
  | 'Evaluation and bookkeeping';

interface Common {
  group: FieldGroup;
  help: string;
  paper?: string;
  /** TRL's GRPOConfig has a field of this name and meaning. */
  trl?: boolean;
  /**
   * TRL 1.13's GRPOConfig default, where it differs from this field's (the setup's TRL badge says so;
   * src/export/trl/trl-mapping.test.ts checks every trl field's default against the installed TRL).
   */
  trlDefault?: number | string | boolean;
  /** Changing it changes compiled graph shapes or the prompt stream: it takes effect in a new run. */
  restart?: boolean;
  /** Set by its own control in the UI (task picker, knobs), not by the generic form. */
  ownControl?: boolean;
}

export type FieldDecl = Common &
  (
    | { kind: 'int' | 'num'; default: number; min: number; max: number; exclusiveMin?: boolean }
    | { kind: 'nullable-num'; default: number | null; min: number }
    | { kind: 'enum'; default: string; values: readonly string[] }
    | { kind: 'bool'; default: boolean }
    | { kind: 'str'; default: string }
    | { kind: 'record'; default: Record<string, number | string> }
    | {
        kind: 'weights';
        default: Record<string, number>;
        min: number;
        max: number;
        parts: Record<string, { help: string; paper?: string; trl?: boolean }>;
      }
  );
