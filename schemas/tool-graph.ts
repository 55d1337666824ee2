// Answers of the graph endpoints (docs/graphs.md): GET /api/v1/runs/:run_id/graph (what one run
// did, as tools and the transitions between them) and GET /api/v1/graph (the same over the runs
// in view, split by outcome).

/** What a node stands for: a tool, a tool on one file, the merged rest, or the run's ends. */
export type GraphNodeKind = 'start' | 'end' | 'tool' | 'file' | 'other' | 'no_tool';

export interface RunGraphNode {
  /** Stable id: `start`, `end`, `tool:<name>`, `file:<name>\u0000<path>`, `other:<name>`, `other`, `no_tool`. */
  id: string;
  kind: GraphNodeKind;
  /** The tool ('' for start, end, no tool and the merged tools). */
  tool: string;
  /** The file of a `file` node, else ''. */
  key: string;
  label: string;
  /** Tool calls (or steps without one) at this node; start and end: 1. */
  calls: number;
  errors: number;
  cost_usd: number;
  tokens: number;
  duration_ms: number;
  /** Steps of its calls, in order, at most STEP_LIST_CAP; `steps_total` counts them all. */
  steps: number[];
  steps_total: number;
}

export interface RunGraphEdge {
  /** `<from>-><to>`. */
  id: string;
  from: string;
  to: string;
  /** Times the run went from `from` to `to`; for a self-edge, the repetitions. */
  count: number;
  /** Of the calls it leads to: how many failed, and their cost, tokens and time. */
  errors: number;
  cost_usd: number;
  tokens: number;
  duration_ms: number;
  /** A self-edge: the longest streak of the same node back to back (calls). */
  max_streak: number;
  /** Steps of the calls it leads to, at most STEP_LIST_CAP; `steps_total` counts them all. */
  steps: number[];
  steps_total: number;
}

export interface RunGraph {
  project: string;
  run_id: string;
  /** The run's derived status: the end node's label (success, failure, running, …). */
  outcome: string;
  steps: number;
  tool_calls: number;
  /** Nodes merged into "other" nodes because of the caps. */
  merged_nodes: number;
  nodes: RunGraphNode[];
  edges: RunGraphEdge[];
}

/** Which runs a cohort count is over. */
export interface OutcomeCounts {
  /** All runs in the cohort (successes, failures, and runs without a verdict yet). */
  all: number;
  success: number;
  failure: number;
}

export interface CohortExample {
  project: string;
  run_id: string;
  /** The step at which the run took the edge (or made the call); null for a call without a step. */
  step: number | null;
  failed: boolean;
  link: string;
}

export interface CohortGraphNode {
  /** `start`, `end:success`, `end:failure`, `end:other`, `tool:<name>` or `other`. */
  id: string;
  kind: GraphNodeKind;
  tool: string;
  label: string;
  /** Calls of the tool, per outcome. */
  calls: OutcomeCounts;
  /** Runs that called it, per outcome. */
  runs: OutcomeCounts;
  examples: CohortExample[];
}

export interface CohortGraphEdge {
  id: string;
  from: string;
  to: string;
  /** Transitions, per outcome of the run they happened in. */
  count: OutcomeCounts;
  /** P(to | from): this edge's transitions over all transitions out of `from`, per outcome. */
  probability: { all: number; success: number; failure: number };
  /** Runs that took it at least once, per outcome. */
  runs: OutcomeCounts;
  /** Of the runs that took it, the share that failed (0 when none took it). */
  failure_share: number;
  examples: CohortExample[];
}

export interface CohortGraph {
  /** Runs matched by the filters, and how many of the most recent were read (at most the cap). */
  runs_matched: number;
  runs_read: number;
  runs: OutcomeCounts;
  runs_cap: number;
  /** Tools merged into "other" because of the node cap. */
  merged_tools: number;
  nodes: CohortGraphNode[];
  edges: CohortGraphEdge[];
}
