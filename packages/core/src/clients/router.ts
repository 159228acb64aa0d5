import { clientTimeline } from "../timeline/router.js"
import { companyProcedure, router, runEffect } from "../trpc.js"
import { Client, ClientPage, ClientRef, CreateClientInput, ListClientsInput } from "./contracts.js"
import { Clients } from "./service.js"

const tags = ["Clients"]

export const clientsRouter = router({
  list: companyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/clients",
        tags,
        summary: "List clients",
        description: "Clients of the empresa, newest first, paginated; `search` matches name, email, phone or CPF."
      },
      tool: { name: "list_clients", readOnly: true }
    })
    .input(ListClientsInput)
    .output(ClientPage)
    .query(({ ctx, input }) => runEffect(ctx, Clients.list(ctx.empresaId, input))),

  get: companyProcedure
    .meta({
      openapi: { method: "GET", path: "/clients/{client_id}", tags, summary: "Get a client" },
      tool: { name: "get_client", readOnly: true }
    })
    .input(ClientRef)
    .output(Client)
    .query(({ ctx, input }) => runEffect(ctx, Clients.get(ctx.empresaId, input.client_id))),

  create: companyProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/clients",
        tags,
        summary: "Create a client",
        description:
          "Creates a client and links it to the empresa. An email that already has an account links that account; without an email a technical login is provisioned."
      },
      tool: { name: "create_client" }
    })
    .input(CreateClientInput)
    .output(Client)
    .mutation(({ ctx, input }) => runEffect(ctx, Clients.create(ctx.empresaId, input))),

  timeline: clientTimeline
})
