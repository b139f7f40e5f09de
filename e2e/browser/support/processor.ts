import { processorEnv, startStripeServer } from "../../../testing/stripe-server";

// The payment processor cannot be reached from here: the browser suite's server bills through
// the test suite's own Stripe-compatible server, started once for the run on a fixed loopback
// port (the server's environment names it before the run starts).

export const stripePort = Number(process.env.BROWSER_TEST_PORT ?? 18_930) + 1000;

/** The server's billing environment (FREE_PLAN_DEVICES: the default, 3). */
export const browserProcessorEnv = processorEnv(stripePort);

/** Playwright's global setup: the processor's stand-in for the whole run. */
export default async function startProcessor() {
  const processor = await startStripeServer(stripePort);
  return () => processor.stop();
}
