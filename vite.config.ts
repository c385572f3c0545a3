import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * The built page carries its own CSP (Electron loads it from file://, where no header can be
 * set); web mode adds a stricter header on top. Dev server pages are left without one so HMR works.
 */
function cspMeta(): Plugin {
  const policy = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' blob:", // issue 13: attached images, from bytes the page holds
    "font-src 'self'",
    "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return {
    name: 'skilldesk-csp-meta',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: policy },
        injectTo: 'head-prepend',
      },
    ],
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: './',
  plugins: [react(), cspMeta()],
  resolve: {
    alias: {
      // rehype-katex's HTML parsing without the DOM (see renderer/ui/from-html.ts).
      'hast-util-from-html-isomorphic': fileURLToPath(new URL('./renderer/ui/from-html.ts', import.meta.url)),
    },
  },
  build: {
    outDir: fileURLToPath(new URL('./out/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1500,
    // Nothing inlined as data: URLs (KaTeX's fonts would be): the CSP allows fonts from 'self' only.
    assetsInlineLimit: 0,
  },
});
