import Fastify from "fastify";
import { logger } from "./lib/logger.js";
import { registerOrderRoutes } from "./routes/orders.js";

export function buildServer() {
  const app = Fastify({ loggerInstance: logger });
  registerOrderRoutes(app);
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.PORT ?? 3000);
  buildServer().listen({ port });
}
