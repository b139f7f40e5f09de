export { authDevice as POST } from "@/lib/handlers/agent";
