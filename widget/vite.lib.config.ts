import { defineConfig, mergeConfig } from 'vite';
import dts from 'vite-plugin-dts';
import { shared } from './vite.shared.js';

// Build 3 of 3: the ES library `@ticketing/widget` (mount() and its types) for bundler users.
export default defineConfig(
  mergeConfig(shared, {
    // Declarations for the public surface only: mount() and its types, nothing of the panel's insides.
    plugins: [
      dts({ tsconfigPath: './tsconfig.json', include: ['src/lib.ts', 'src/public-types.ts'], entryRoot: 'src' }),
    ],
    build: {
      outDir: 'dist/lib',
      emptyOutDir: true,
      lib: { entry: 'src/lib.ts', formats: ['es'], fileName: () => 'index.js' },
    },
  }),
);
