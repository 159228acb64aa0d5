import { adminProcedure, refuses, router, runEffect } from "../trpc.js"
import { CreateEmpresaInput, Empresa, EmpresaRef, UpdateEmpresaInput } from "./contracts.js"
import { Empresas } from "./service.js"

const tags = ["Empresas"]

export const empresasRouter = router({
  create: adminProcedure
    .concat(refuses("ID_NAME_TAKEN", "CNPJ_TAKEN"))
    .meta({
      successStatus: 201,
      location: "/empresas/{id}",
      openapi: {
        method: "POST",
        path: "/empresas",
        tags,
        summary: "Create an empresa",
        description:
          "A company on the platform, with its public slug (`id_name`), plan and settings; its API keys are " +
          "created apart. A slug or CNPJ another empresa has is refused (ID_NAME_TAKEN, CNPJ_TAKEN)."
      },
      tool: { name: "create_empresa", adminOnly: true }
    })
    .input(CreateEmpresaInput)
    .output(Empresa)
    .mutation(({ ctx, input }) => runEffect(ctx, Empresas.create(input))),

  get: adminProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "GET",
        path: "/empresas/{empresa_id}",
        tags,
        summary: "Get an empresa",
        description:
          "One empresa by id: name, slug (`id_name`), CNPJ, plan, whether its plan includes API access, and its " +
          "settings. An unknown id is NOT_FOUND."
      },
      tool: { name: "get_empresa", adminOnly: true, readOnly: true }
    })
    .input(EmpresaRef)
    .output(Empresa)
    .query(({ ctx, input }) => runEffect(ctx, Empresas.get(input.empresa_id))),

  update: adminProcedure
    .concat(refuses("NOT_FOUND", "ID_NAME_TAKEN", "CNPJ_TAKEN"))
    .meta({
      openapi: {
        method: "PATCH",
        path: "/empresas/{empresa_id}",
        tags,
        summary: "Update an empresa",
        description: "Changes only the fields sent; settings merge key by key."
      },
      tool: { name: "update_empresa", retrySafe: true, adminOnly: true }
    })
    .input(UpdateEmpresaInput)
    .output(Empresa)
    .mutation(({ ctx, input }) => runEffect(ctx, Empresas.update(input)))
})
