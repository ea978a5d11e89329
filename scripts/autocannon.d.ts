// The few parts of autocannon's API that bench-emulator uses (the package ships no types).
declare module 'autocannon' {
  export interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    total: number;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    pipelining?: number;
    overallRate?: number;
    requests?: {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (request: { method?: string; path?: string; headers: Record<string, string>; body?: string }) => {
        method?: string;
        path?: string;
        headers: Record<string, string>;
        body?: string;
      };
    }[];
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
