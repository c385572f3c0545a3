import type { AppErrorData } from '../../../electron/contract/errors.js';
import { isProviderKindId, PROVIDER_FACTS } from '../../../electron/contract/providers.js';

/** A failed reply in words: what happened, what to do, and which buttons help. */
export interface ReplyErrorView {
  title: string;
  advice: string;
  /** Sending the same message again can work (the cause may pass). */
  retry: boolean;
  /** The fix is in Settings → Providers. */
  settings: boolean;
}

const NETWORK =
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ETIMEDOUT|Cannot connect|fetch failed|bad port|getaddrinfo|socket hang up|network/i;

/** Who answered, as said mid-sentence ("your model server", "OpenAI", "the provider"). */
function providerName(e: AppErrorData): string {
  const p = e.details?.provider;
  return typeof p === 'string' && isProviderKindId(p) ? PROVIDER_FACTS[p].spoken : 'the provider';
}

/** The same at the start of a sentence. */
const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Say what went wrong with a reply from its error code and details, never from a stack. */
export function describeReplyError(e: AppErrorData): ReplyErrorView {
  const status = typeof e.details?.status === 'number' ? e.details.status : undefined;
  const who = providerName(e);
  switch (e.code) {
    case 'LLM_NOT_CONFIGURED':
      return {
        title: 'No model is set up yet',
        advice: 'Choose a provider and model in Settings, then send your message again.',
        retry: false,
        settings: true,
      };
    case 'LLM_MISSING_KEY':
      return {
        title: 'The provider needs an API key',
        advice: 'Add the key in Settings → Providers, then retry.',
        retry: true,
        settings: true,
      };
    case 'LLM_RATE_LIMITED':
      return {
        title: 'The provider is limiting requests',
        advice: 'Too many requests in a short time. Wait a moment, then retry.',
        retry: true,
        settings: false,
      };
    case 'LLM_TIMEOUT':
      return {
        title: 'The model took too long to answer',
        advice: 'It may be busy or the request too large. Retry, or pick a faster model in Settings.',
        retry: true,
        settings: true,
      };
    case 'LLM_REFUSED':
      return {
        title: 'The model declined to answer',
        advice: 'Rephrase the message and send it again.',
        retry: false,
        settings: false,
      };
    case 'DISCONNECTED':
      return {
        title: 'SkillDesk lost its connection',
        advice: 'The window could not reach SkillDesk. Once it reconnects, retry.',
        retry: true,
        settings: false,
      };
    default:
      break;
  }
  if (status === 401 || status === 403)
    return {
      title: `${upperFirst(who)} refused the API key`,
      advice: 'Check the key in Settings → Providers (it may be wrong, expired or lack access), then retry.',
      retry: true,
      settings: true,
    };
  if (status === 404)
    return {
      title: `${upperFirst(who)} does not know this model or address`,
      advice: 'Check the model name and base URL in Settings → Providers.',
      retry: true,
      settings: true,
    };
  if (status !== undefined && status >= 500)
    return {
      title: `${upperFirst(who)} had a problem on its side`,
      advice: 'This is usually brief. Retry in a moment.',
      retry: true,
      settings: false,
    };
  if (e.code.startsWith('LLM_') && NETWORK.test(e.message))
    return {
      title: `Couldn’t reach ${who}`,
      advice: 'Check the base URL in Settings → Providers and that the server is running, then retry.',
      retry: true,
      settings: true,
    };
  if (e.code.startsWith('LLM_'))
    return {
      title: 'The model call failed',
      advice: 'Retry; if it keeps failing, check the provider in Settings.',
      retry: true,
      settings: true,
    };
  return {
    title: 'The reply failed',
    advice: 'Retry; if it keeps failing, the details below say why.',
    retry: true,
    settings: false,
  };
}
