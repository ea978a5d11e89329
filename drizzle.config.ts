import { defineConfig } from 'drizzle-kit';

// `npx drizzle-kit generate` writes the next migration into ./drizzle from src/db/schema.ts; commit both.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
});
