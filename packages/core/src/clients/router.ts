import { companyProcedure, refuses, router, runEffect } from "../trpc.js"
import {
  Client,
  ClientPage,
  ClientRef,
  CreateClientInput,
  IMPORT_BATCH_MAX,
  ImportClientsInput,
  ImportClientsResult,
  ListClientsInput
} from "./contracts.js"
import { Clients } from "./service.js"
import { TimelineInput, TimelinePage } from "../timeline/contracts.js"
import { Timeline } from "../timeline/service.js"

const tags = ["Clients"]

/** `get_client_timeline`: the timeline area's read, under /clients. */
const clientTimeline = companyProcedure
  .concat(refuses("NOT_FOUND"))
  .meta({
    openapi: {
      method: "GET",
      path: "/clients/{client_id}/timeline",
      tags: ["Clients"],
      summary: "Get a client's timeline",
      description:
        "The client's activity in this empresa, newest first and paginated: purchases and credits, " +
        "rewards and coupons (negative points when spent), referrals and interactions. " +
        "Filter with repeated `category` and a `from`/`to` window."
    },
    tool: { name: "get_client_timeline", readOnly: true }
  })
  .input(TimelineInput)
  .output(TimelinePage)
  .query(({ ctx, input }) => runEffect(ctx, Timeline.forClient(ctx.empresaId, input)))

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
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/clients/{client_id}",
        tags,
        summary: "Get a client",
        description:
          "One of the empresa's clients by id: name, email, phone, CPF, current points balance, and when the " +
          "record was created and last changed. Their history is in the client's timeline, their activity over " +
          "a period in their behaviour report. An unknown id, or another empresa's client, is NOT_FOUND."
      },
      tool: { name: "get_client", readOnly: true }
    })
    .input(ClientRef)
    .output(Client)
    .query(({ ctx, input }) => runEffect(ctx, Clients.get(ctx.empresaId, input.client_id))),

  create: companyProcedure
    .concat(refuses("CLIENT_EXISTS"))
    .meta({
      successStatus: 201,
      location: "/clients/{id}",
      openapi: {
        method: "POST",
        path: "/clients",
        tags,
        summary: "Create a client",
        description:
          "Creates a client and links it to the empresa. An email that already has an account links that account; " +
          "without an email a technical login is provisioned."
      },
      tool: { name: "create_client" }
    })
    .input(CreateClientInput)
    .output(Client)
    .mutation(({ ctx, input }) => runEffect(ctx, Clients.create(ctx.empresaId, input))),

  import: companyProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/clients/import",
        tags,
        summary: "Import clients in bulk",
        description:
          `Creates up to ${IMPORT_BATCH_MAX} clients in one transaction and answers one result per row, in order: ` +
          `\`created\` (with its client_id), \`skipped\` (a client with the same email or CPF already exists in the ` +
          `empresa, or an earlier row of the batch has it; re-running an import therefore creates nothing twice) ` +
          `or \`invalid\` (the rules of creating one client, with the fields and messages). ` +
          `One bad row never refuses the batch; blank fields count as absent. ` +
          `\`dry_run\` validates and checks for existing clients without writing.`
      },
      tool: { name: "import_clients", adminOnly: true }
    })
    .input(ImportClientsInput)
    .output(ImportClientsResult)
    .mutation(({ ctx, input }) => runEffect(ctx, Clients.import(ctx.empresaId, input))),

  timeline: clientTimeline
})
