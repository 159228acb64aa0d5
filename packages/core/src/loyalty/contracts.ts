import { z } from "zod"
import { Flag, HttpUrl, JsonNumber, QueryFlag, Timestamp } from "../contracts.js"
import { CardId, ClientId, EmpresaId, ProgramId } from "../ids.js"

/** The most stamps a card may need; a goal beyond it is not a stamp card any more. */
const MAX_STAMPS = 100

const EXAMPLE = {
  clientId: "18e80772-42c3-4276-ae21-37f63b69427a",
  programId: "3c9d7a51-0e2b-4f8a-b6c4-5d1e2f3a4b6c",
  cardId: "9a4f1c2e-6b7d-4e8f-a0b1-c2d3e4f5a6b7",
  nextCardId: "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f"
}

// Programs (card definitions)

const ProgramName = z.string().trim().min(1).max(200).describe("Name of the card, shown to clients")
const StampsRequired = JsonNumber(z.number().int().min(1).max(MAX_STAMPS)).describe(
  `Stamps that complete a card, 1 to ${MAX_STAMPS}. A change applies to cards issued afterwards`
)
const RewardDescription = z.string().trim().min(1).max(500).describe("What the client gets for a completed card")
const ImageUrl = HttpUrl.describe("Card artwork (http or https URL)")

export const LoyaltyProgram = z
  .object({
    id: ProgramId.describe("Program id"),
    name: z.string(),
    stamps_required: z.number().int().describe("Stamps that complete a card issued now"),
    reward_description: z.string(),
    image_url: z.string().nullable(),
    active: z
      .boolean()
      .describe("Inactive programs issue no cards and take no stamps; earned rewards can still be claimed"),
    created_at: Timestamp,
    updated_at: Timestamp
  })
  .meta({
    id: "LoyaltyProgram",
    examples: [
      {
        id: EXAMPLE.programId,
        name: "Cartão Café",
        stamps_required: 8,
        reward_description: "Um café expresso grátis",
        image_url: "https://cdn.example.com/cards/cafe.png",
        active: true,
        created_at: "2026-10-01T12:00:00.000Z",
        updated_at: "2026-10-01T12:00:00.000Z"
      }
    ]
  })
export type LoyaltyProgram = z.infer<typeof LoyaltyProgram>

export const ListProgramsInput = z.strictObject({
  active: QueryFlag.optional().describe("Only active (true) or inactive (false) programs; all when absent")
})
export type ListProgramsInput = z.infer<typeof ListProgramsInput>

export const CreateProgramInput = z
  .strictObject({
    name: ProgramName,
    stamps_required: StampsRequired,
    reward_description: RewardDescription,
    image_url: ImageUrl.optional(),
    active: Flag.default(true).describe("Whether cards can be issued and stamped; default true")
  })
  .meta({
    examples: [
      {
        name: "Cartão Café Fiel",
        stamps_required: 10,
        reward_description: "Um café expresso grátis",
        image_url: "https://cdn.example.com.br/cartoes/cafe-fiel.png",
        active: true
      }
    ]
  })
export type CreateProgramInput = z.infer<typeof CreateProgramInput>

export const UpdateProgramInput = z
  .strictObject({
    program_id: ProgramId.describe("Program id"),
    name: ProgramName.optional(),
    stamps_required: StampsRequired.optional(),
    reward_description: RewardDescription.optional(),
    image_url: ImageUrl.nullable().optional().describe("Card artwork (http or https URL); null removes it"),
    active: Flag.optional().describe("false pauses the program: no new cards, no stamps; true resumes it")
  })
  .meta({
    examples: [
      {
        program_id: "7d2e4f18-9a3b-4c6d-8e1f-2a5b7c9d0e13",
        stamps_required: 8,
        reward_description: "Um cappuccino grátis"
      }
    ]
  })
export type UpdateProgramInput = z.infer<typeof UpdateProgramInput>

// Cards (progress rows issued to clients)

const CardStatus = z
  .enum(["active", "completed", "claimed"])
  .describe("active: collecting stamps; completed: all stamps, reward not yet claimed; claimed: reward given")

const cardExample = {
  id: EXAMPLE.cardId,
  client_id: EXAMPLE.clientId,
  program_id: EXAMPLE.programId,
  program_name: "Cartão Café",
  reward_description: "Um café expresso grátis",
  stamps: 3,
  max_stamps: 8,
  completed: false,
  status: "active",
  completed_at: null,
  claimed_at: null,
  created_at: "2026-11-02T14:03:11.000Z",
  updated_at: "2026-11-20T09:41:52.000Z"
}

export const LoyaltyCard = z
  .object({
    id: CardId.describe("Card id: the card_id to stamp or claim"),
    client_id: ClientId,
    program_id: ProgramId,
    program_name: z.string(),
    reward_description: z.string(),
    stamps: z.number().int().describe("Stamps collected"),
    max_stamps: z
      .number()
      .int()
      .describe("Stamps that complete this card (the program's stamps_required when it was issued)"),
    completed: z.boolean().describe("true once stamps reach max_stamps"),
    status: CardStatus,
    completed_at: Timestamp.nullable(),
    claimed_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp
  })
  .meta({
    id: "LoyaltyCard",
    examples: [cardExample]
  })
export type LoyaltyCard = z.infer<typeof LoyaltyCard>

export const ListCardsInput = z.strictObject({
  client_id: ClientId.optional().describe("Only this client's cards"),
  program_id: ProgramId.optional().describe("Only cards of this program"),
  status: CardStatus.optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .default(100)
    .describe("At most this many cards, 1 to 500; default 100"),
  starting_after: CardId.optional().describe(
    "Cursor: the cards issued before this card id (the last id of the previous call)"
  )
})
export type ListCardsInput = z.infer<typeof ListCardsInput>

export const IssueCardInput = z
  .strictObject({
    client_id: ClientId.describe("Client who receives the card"),
    program_id: ProgramId.describe("Program (card definition) to issue")
  })
  .meta({
    examples: [
      { client_id: "18e80772-42c3-4276-ae21-37f63b69427a", program_id: "7d2e4f18-9a3b-4c6d-8e1f-2a5b7c9d0e13" }
    ]
  })
export type IssueCardInput = z.infer<typeof IssueCardInput>

export const CardRef = z.strictObject({
  card_id: CardId.describe("Card id (from the list of loyalty cards), not the program id")
})

export const StampCardInput = z
  .strictObject({
    card_id: CardId.describe("Card id (from the list of loyalty cards), not the program id"),
    quantity: JsonNumber(z.number().int().min(1).max(MAX_STAMPS))
      .default(1)
      .describe("Stamps to add, default 1; more than the card still needs is refused (STAMPS_EXCEED_REMAINING)")
  })
  .meta({ examples: [{ card_id: "a41f6c2e-3b8d-4e9a-b7c5-1d2f3e4a5b60", quantity: 1 }] })

export type StampCardInput = z.infer<typeof StampCardInput>

export const LoyaltyProgress = z
  .object({
    card_id: CardId,
    client_id: ClientId,
    program_id: ProgramId,
    stamps: z.number().int().describe("Stamps collected after this operation"),
    max_stamps: z.number().int().describe("Stamps that complete the card"),
    completed: z.boolean().describe("true when this card is full: claim its reward"),
    stamped: z.number().int().describe("Stamps added by this operation")
  })
  .meta({
    id: "LoyaltyProgress",
    examples: [
      {
        card_id: EXAMPLE.cardId,
        client_id: EXAMPLE.clientId,
        program_id: EXAMPLE.programId,
        stamps: 4,
        max_stamps: 8,
        completed: false,
        stamped: 1
      }
    ]
  })
export type LoyaltyProgress = z.infer<typeof LoyaltyProgress>

const claimedExample = {
  ...cardExample,
  stamps: 8,
  completed: true,
  status: "claimed",
  completed_at: "2026-11-20T09:41:52.000Z",
  claimed_at: "2026-11-21T16:10:05.000Z",
  updated_at: "2026-11-21T16:10:05.000Z"
}

export const ClaimResult = z
  .object({
    claimed_card: LoyaltyCard.describe("The card whose reward was given, now claimed"),
    next_card: LoyaltyCard.nullable().describe(
      "The fresh card of the same program for the next cycle; null when the program is inactive"
    )
  })
  .meta({
    id: "LoyaltyClaim",
    examples: [
      {
        claimed_card: claimedExample,
        next_card: {
          ...claimedExample,
          id: EXAMPLE.nextCardId,
          stamps: 0,
          completed: false,
          status: "active",
          completed_at: null,
          claimed_at: null,
          created_at: "2026-11-21T16:10:05.000Z"
        }
      }
    ]
  })
export type ClaimResult = z.infer<typeof ClaimResult>

// The end user's side (spec 2.4): `card_id` there is the card definition's (program's) id, the one
// GET /loyalty-cards/empresa/{empresa_id} lists; the user's issued card of it is found server-side.

export const CardDefinitions = z.object({
  cards: z.array(
    z.object({
      id: ProgramId.describe("The card definition's id: the `card_id` of progress and claim-reward"),
      name: z.string(),
      stamps_required: z.number().int(),
      reward_description: z.string(),
      image_url: z.string().nullable(),
      active: z.boolean()
    })
  )
})

export const StoreRef = z.strictObject({ empresa_id: EmpresaId.describe("The store (empresa) id") })

export const UserCardRef = z
  .strictObject({ card_id: ProgramId.describe("The card definition's id") })
  .meta({ examples: [{ card_id: "3c4d5e6f-7081-4a92-b3c4-d5e6f7a8b9c0" }] })

export const CardProgress = z.object({
  card_id: ProgramId,
  card_name: z.string(),
  stamps_collected: z.number().int().describe("On the user's open card; 0 before the store issues one"),
  stamps_required: z.number().int(),
  progress_percentage: z.number().int().describe("0 to 100, rounded down"),
  reward_available: z.boolean().describe("The card is full: claim-reward gives a code for the counter"),
  reward_description: z.string()
})
export type CardProgress = z.infer<typeof CardProgress>

export const ClaimRewardResult = z.object({
  success: z.literal(true),
  redemption_code: z.string().describe("Shown at the counter, which validates it like a reward's"),
  qr_code_url: z.string(),
  reward: z.string().describe("What the card gives"),
  expires_at: Timestamp
})
export type ClaimRewardResult = z.infer<typeof ClaimRewardResult>
