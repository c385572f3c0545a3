import { describe, expect, it } from 'vitest';
import type { ConfiguredProviderView, TestConnectionRes } from '../../../electron/contract/settings.js';
import {
  currentTest,
  initialProvidersState,
  providerFingerprint,
  providersReducer,
} from './providers-store.js';

const provider = (over: Partial<ConfiguredProviderView> = {}): ConfiguredProviderView => ({
  id: 'local',
  kind: 'openai-compatible',
  label: 'Local',
  base_url: 'http://127.0.0.1:11434/v1',
  model: null,
  effective_model: 'llama3.2',
  requires_key: false,
  env_var: 'OPENAI_COMPATIBLE_API_KEY',
  has_key: false,
  source: null,
  models: null,
  models_fetched_at: null,
  is_default: true,
  ...over,
});

const ok: TestConnectionRes = {
  ok: true,
  provider: 'local',
  label: 'Local',
  model: 'llama3.2',
  picked_model: null,
  base_url: 'http://127.0.0.1:11434/v1',
  took_ms: 5,
  model_count: 3,
  model_listed: true,
  error: null,
};

describe('provider test outcomes', () => {
  it('belong to the provider as it was tested: a new base URL or key makes them stale', () => {
    const p = provider();
    let s = providersReducer(initialProvidersState(), {
      type: 'test/requested',
      provider: 'local',
      fingerprint: providerFingerprint(p),
    });
    expect(currentTest(s.tests, p)?.status).toBe('running');
    s = providersReducer(s, { type: 'test/finished', provider: 'local', result: ok });
    expect(currentTest(s.tests, p)?.result?.ok).toBe(true);
    expect(currentTest(s.tests, provider({ base_url: 'http://127.0.0.1:1234/v1' }))).toBeNull();
    expect(currentTest(s.tests, provider({ has_key: true, source: 'file' }))).toBeNull();
    // Another provider's save leaves this outcome; this provider's save drops it.
    s = providersReducer(s, { type: 'save/succeeded', value: null, notice: 'Key saved.', provider: 'other' });
    expect(currentTest(s.tests, p)).not.toBeNull();
    s = providersReducer(s, { type: 'save/succeeded', value: null, notice: 'Key saved.', provider: 'local' });
    expect(currentTest(s.tests, p)).toBeNull();
  });

  it('drops an outcome that arrives after the provider changed', () => {
    const p = provider();
    let s = providersReducer(initialProvidersState(), {
      type: 'test/requested',
      provider: 'local',
      fingerprint: providerFingerprint(p),
    });
    s = providersReducer(s, {
      type: 'save/succeeded',
      value: null,
      notice: 'Provider saved.',
      provider: 'local',
    });
    s = providersReducer(s, { type: 'test/finished', provider: 'local', result: ok });
    expect(s.tests).toEqual({});
  });
});
