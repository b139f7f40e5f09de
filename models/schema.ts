export * from "./api-keys";
export * from "./devices";
export * from "./login-attempts";
export * from "./namespaces";
export * from "./public-keys";
export * from "./sessions";
export * from "./users";
