// autocannon ships no types; the benchmark uses this much of it.
declare module "autocannon" {
  namespace autocannon {
    type Request = { method?: string; path?: string; headers?: Record<string, string>; body?: string };
    type Options = {
      url: string;
      duration?: number;
      connections?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      requests?: Array<{ setupRequest?: (request: Request) => Request }>;
    };
    type Result = {
      requests: { average: number };
      latency: { p50: number; p99: number };
      "2xx": number;
      non2xx: number;
      errors: number;
      timeouts: number;
    };
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
