import { z } from "zod";
import { connectorStates } from "@/models/enums";
import { pagination } from "./common";
import { deviceObject } from "./devices";

const hostname = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** A host name or an IP address, written in lower case. */
export const connectorAddress = z
  .string()
  .trim()
  .toLowerCase()
  .refine((value) => hostname.test(value) || z.ipv4().safeParse(value).success || z.ipv6().safeParse(value).success, {
    message: "expected a host name or an IP address",
  });

export const connectorPort = z
  .number({ message: "expected a port number" })
  .int("expected a port number")
  .min(0, "at least 0")
  .max(65535, "at most 65535");

const maxPemLength = 65_536;
const pem = (what: string) =>
  z
    .string()
    .max(maxPemLength, `at most ${maxPemLength} characters`)
    .refine((value) => value.includes("-----BEGIN "), `expected ${what} in PEM`);

/**
 * A connector's TLS material, PEM: `ca` signs the engine's certificate, `cert` and `key` are the
 * client certificate the engine asks for. The key is stored sealed and never answered.
 */
export const connectorTlsBody = z.object({
  ca: pem("a CA certificate"),
  cert: pem("a certificate"),
  key: pem("a private key"),
});

export const createConnectorBody = z.object({
  enable: z.boolean().default(true),
  address: connectorAddress,
  port: connectorPort,
  secure: z.boolean().default(false),
  tls: connectorTlsBody.nullable().default(null),
});
export type CreateConnectorBody = z.infer<typeof createConnectorBody>;

/** What an update changes; a field left out keeps its value, `tls: null` removes the material. */
export const updateConnectorBody = z.object({
  enable: z.boolean().optional(),
  address: connectorAddress.optional(),
  port: connectorPort.optional(),
  secure: z.boolean().optional(),
  tls: connectorTlsBody.nullable().optional(),
});
export type UpdateConnectorBody = z.infer<typeof updateConnectorBody>;

export const connectorParams = z.object({ uid: z.uuid({ message: "expected a connector uid (uuid)" }) });

const queryFlag = z.enum(["true", "false"], { message: "expected true or false" }).transform((flag) => flag === "true");

export const listConnectorsQuery = pagination.extend({ enable: queryFlag.optional() });

export const connectorObject = z.object({
  uid: z.string(),
  tenant_id: z.string(),
  enable: z.boolean(),
  address: z.string(),
  port: z.number().int(),
  secure: z.boolean(),
  status: z.object({ State: z.enum(connectorStates), Message: z.string() }),
  tls: z.object({ ca: z.string(), cert: z.string() }).nullable().describe("the client key is never answered"),
  containers: z.number().int().describe("the devices that are containers of its engine"),
});
export type ConnectorObject = z.infer<typeof connectorObject>;

/** The fields of the engine's own info that SPEC.md names. */
export const connectorInfoObject = z.object({
  ID: z.string(),
  Containers: z.number().int(),
  ContainersRunning: z.number().int(),
  ContainersPaused: z.number().int(),
  ContainersStopped: z.number().int(),
  Images: z.number().int(),
  Driver: z.string(),
  DriverStatus: z.array(z.array(z.string())),
  Plugins: z.object({ Volume: z.array(z.string()), Network: z.array(z.string()) }),
});

/** A container as the containers list answers it: the device, and where it comes from. */
export const containerObject = deviceObject.extend({
  container: z.object({
    connector_uid: z.string().describe("the connector whose engine runs it"),
    id: z.string().describe("the engine's container id"),
    image: z.string(),
  }),
});
