/** The `app/*` slice of the API contract: facts about the running app. Never secrets. */
import { z } from 'zod';

/** `app/info` takes no arguments. */
export const AppInfoReqSchema = z.object({}).strict();
/** Request of `app/info`. */
export type AppInfoReq = z.infer<typeof AppInfoReqSchema>;

/** How the renderer is being served. */
export type AppMode = 'electron' | 'web' | 'cli' | 'test';

/** Reply of `app/info`: version and where data lives. */
export interface AppInfoRes {
  name: 'SkillDesk';
  version: string;
  mode: AppMode;
  /** The account data folder. */
  home: string;
  /** The open workspace folder, or null. */
  workspace: string | null;
  stores: {
    account: { file: string };
    /** `exists: false` until something is saved to the workspace scope. */
    workspace: { file: string; exists: boolean } | null;
  };
  platform: string;
}

/** The `app/*` channels. */
export interface AppChannels {
  'app/info': { req: AppInfoReq; res: AppInfoRes };
}

/** Request schemas of the `app/*` channels. */
export const appRequestSchemas = {
  'app/info': AppInfoReqSchema,
};

// The Skill Composer in its own desktop window.
/** `app/open-window`: open (or focus) another window of the app. */
export const OpenWindowReqSchema = z.object({ window: z.enum(['composer']) }).strict();
/** Request of `app/open-window`. */
export type OpenWindowReq = z.infer<typeof OpenWindowReqSchema>;
/** Reply of `app/open-window`: `opened` false where the face has no windows (web mode, CLI, tests). */
export interface OpenWindowRes {
  opened: boolean;
}
/** The channels of the app's windows. */
export interface AppWindowChannels {
  'app/open-window': { req: OpenWindowReq; res: OpenWindowRes };
}
/** Request schemas of {@link AppWindowChannels}. */
export const appWindowRequestSchemas = { 'app/open-window': OpenWindowReqSchema };
