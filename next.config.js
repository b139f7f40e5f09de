/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // Native and WebAssembly packages are loaded by Node at run time, never bundled.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "@node-rs/argon2", "ssh2"],
  // `npm run typecheck` checks types; the build does not repeat it.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
