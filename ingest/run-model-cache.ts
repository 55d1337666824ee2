// Remembers the model of recently started runs (bounded, oldest evicted first), so steps that
// name no model can still be priced.
export class RunModelCache {
  private readonly map = new Map<string, string>();
  constructor(private readonly capacity: number) {}

  set(project: string, runId: string, model: string): void {
    const key = `${project}\u0000${runId}`;
    this.map.delete(key);
    this.map.set(key, model);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }

  get(project: string, runId: string): string | undefined {
    return this.map.get(`${project}\u0000${runId}`);
  }
}
