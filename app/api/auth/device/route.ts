export { authDeviceAlias as POST } from "@/lib/handlers/agent";
