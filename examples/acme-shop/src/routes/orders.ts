import type { FastifyInstance } from "fastify";

export function registerOrderRoutes(app: FastifyInstance) {
  app.get("/orders/:id", async (request) => {
    const { id } = request.params as { id: string };
    return { id, status: "pending" };
  });

  app.post("/orders", async (request, reply) => {
    reply.code(201);
    return { ok: true };
  });
}
