export { markOffline as POST } from "@/lib/handlers/agent";
