import { describe, expect, it } from 'vitest';
import { buildTestConfig } from '../../test/helpers/test-config.js';

const config = (tasks: string) => buildTestConfig({ yaml: `providers: []\nmodels: []\ntasks: ${tasks}\n` });

describe('the tasks: section of the config file', () => {
  it('becomes per-kind schedules in milliseconds', () => {
    expect(config('{video: {max_age_seconds: 30, min_poll_seconds: 0.5, max_poll_seconds: 4}}').tasks).toEqual({ video: { maxAgeMs: 30_000, minPollMs: 500, maxPollMs: 4_000 } });
  });

  it('refuses unknown kinds and fields by their path', () => {
    expect(() => config('{video: {max_age: 3}}')).toThrow('test.yaml: tasks.video.max_age: unknown field');
    expect(() => config('{vidoe: {max_age_seconds: 30}}')).toThrow(/tasks\.vidoe/);
    expect(() => config('{video: {max_age_seconds: 1}}')).toThrow(/tasks\.video\.max_age_seconds/);
  });
});
