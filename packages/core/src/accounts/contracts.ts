import { z } from "zod"
import { Flag, Timestamp } from "../contracts.js"
import { Cpf, Telefone } from "../documents.js"
import { UserId } from "../ids.js"

/** A password's length bounds, exported so the reset page states the same rule the API checks. */
export const PASSWORD_LENGTH = { min: 8, max: 128 } as const

export const PASSWORD_RULE = `Password must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters`

const Password = z
  .string()
  .min(PASSWORD_LENGTH.min, PASSWORD_RULE)
  .max(PASSWORD_LENGTH.max, PASSWORD_RULE)
  .describe(
    `${PASSWORD_RULE}; not blank, not one of the most common passwords, and not containing ` +
      "the account's email or name (422 says which)"
  )

/**
 * A deliverable address. `no-email.invalid` is the domain of the technical logins a company's
 * client without an email gets (docs/architecture.md, "Tenancy and identity"): nobody can receive mail there.
 */
export const Email = z
  .email("Invalid email address")
  .max(254)
  .refine((email) => !email.toLowerCase().endsWith("@no-email.invalid"), "Invalid email address")
  .describe("The account's login and where its links are sent")

export const Nome = z.string().trim().min(1, "Name is required").max(200).describe("Full name")

const RefreshToken = z.string().min(1).max(200).describe("The refresh token of the last login or refresh")

/** A link token from an account email (verification or password reset). */
const LinkToken = z.string().min(1).max(2048).describe("The token from the email's link")

export const RegisterInput = z
  .strictObject({
    email: Email,
    password: Password,
    nome: Nome,
    telefone: Telefone.optional(),
    cpf: Cpf.optional(),
    referral_code: z
      .string()
      .trim()
      .min(1)
      .max(40)
      .optional()
      .describe("Another user's referral code: completed when this user first earns points at a store")
  })
  .meta({
    examples: [
      {
        email: "ana.souza@example.com",
        password: "correct horse battery",
        nome: "Ana Souza",
        telefone: "+5511987654321",
        cpf: "52998224725"
      }
    ]
  })
export type RegisterInput = z.infer<typeof RegisterInput>

export const LoginInput = z
  .strictObject({
    email: z.string().min(1).max(254),
    password: z.string().min(1).max(1024),
    remember_me: Flag.default(false).describe("true: the refresh token lives 30 days instead of 7 (spec 5.6)")
  })
  .meta({ examples: [{ email: "ana.souza@example.com", password: "correct horse battery", remember_me: true }] })
export type LoginInput = z.infer<typeof LoginInput>

const REFRESH_EXAMPLE = { refresh_token: "rt_5yP0m3Qk8vXb2LcN7dRfTgHs4WjZaE1u" }
// A link token's shape (a signed JWT); a real one arrives in the email.
const LINK_EXAMPLE = "eyJhbGciOiJIUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiI3YjJjIn0.c2lnbmF0dXJl"

export const RefreshInput = z.strictObject({ refresh_token: RefreshToken }).meta({ examples: [REFRESH_EXAMPLE] })
export const LogoutInput = z.strictObject({ refresh_token: RefreshToken }).meta({ examples: [REFRESH_EXAMPLE] })
export const VerifyEmailInput = z.strictObject({ token: LinkToken }).meta({ examples: [{ token: LINK_EXAMPLE }] })
export const RequestPasswordResetInput = z
  .strictObject({ email: z.string().min(1).max(254).describe("The account's email") })
  .meta({ examples: [{ email: "ana.souza@example.com" }] })
export const ResetPasswordInput = z
  .strictObject({ token: LinkToken, password: Password })
  .meta({ examples: [{ token: LINK_EXAMPLE, password: "cavalo correto bateria" }] })

export const UpdateProfileInput = z
  .strictObject({
    nome: Nome.optional(),
    telefone: Telefone.nullable().optional(),
    cpf: Cpf.nullable().optional()
  })
  .meta({ examples: [{ nome: "Ana Souza Lima", telefone: "+5511987654321", cpf: "52998224725" }] })
export type UpdateProfileInput = z.infer<typeof UpdateProfileInput>

const TOKENS_EXAMPLE = {
  access_token: "eyJhbGciOiJIUzI1NiIsImtpZCI6ImluaXRpYWwifQ.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
  refresh_token: "rt_q9X2b4m1L0pWc8kTzR7vN3yA6sD5fG2hJ4kL8mN0pQ",
  token_type: "bearer",
  expires_in: 3600,
  refresh_expires_in: 604800
} as const

const tokenFields = {
  access_token: z.string().describe("JWT for `Authorization: Bearer`; valid `expires_in` seconds"),
  refresh_token: z.string().describe("Opaque; exchanged at /auth/refresh for a new pair, once"),
  token_type: z.literal("bearer"),
  expires_in: z.number().int().describe("Seconds the access token is valid (3600)"),
  refresh_expires_in: z
    .number()
    .int()
    .describe("Seconds the refresh token is valid: 7 days, or 30 with remember_me (spec 5.6)")
}

export const TokenPair = z.object(tokenFields).meta({ examples: [TOKENS_EXAMPLE] })
export type TokenPair = z.infer<typeof TokenPair>

const USER_EXAMPLE = {
  id: "0b5b7a2e-55f4-4e7b-9a51-8c0f3c1b2d9e",
  email: "ana.souza@example.com",
  nome: "Ana Souza",
  telefone: "+5511987654321",
  created_at: "2026-11-02T14:03:11.000Z"
}

export const AccountUser = z.object({
  id: UserId,
  email: z.string(),
  nome: z.string(),
  telefone: z.string().nullable(),
  created_at: Timestamp
})
export type AccountUser = z.infer<typeof AccountUser>

/** Register's and login's answer (spec 4.4): a message, the user and a token pair. */
export const Session = z
  .object({ message: z.string(), user: AccountUser, ...tokenFields })
  .meta({ examples: [{ message: "Account created", user: USER_EXAMPLE, ...TOKENS_EXAMPLE }] })
export type Session = z.infer<typeof Session>

export const Message = z.object({ message: z.string() })

export const UserProfile = z
  .object({
    id: UserId,
    email: z.string(),
    email_verified: z.boolean().describe("Balances of the stores' client records show only once true"),
    nome: z.string(),
    telefone: z.string().nullable(),
    cpf: z.string().nullable().describe("Digits only"),
    avatar_url: z.string().nullable(),
    referral_code: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
    stats: z.object({
      total_points: z.number().int().describe("Points across every store, once the email is verified"),
      pending_points: z
        .number()
        .int()
        .describe(
          "Points of offline NFC-e receipts awaiting the state's confirmation, across every store: not in " +
            "total_points and not spendable until confirmed"
        ),
      total_stores: z.number().int().describe("Stores where the user is a client, once the email is verified"),
      total_referrals: z.number().int().describe("Users who registered with this user's referral code"),
      total_rewards_redeemed: z.number().int().describe("Coupons the user used at any store")
    })
  })
  .meta({
    examples: [
      {
        ...USER_EXAMPLE,
        email_verified: true,
        cpf: "52998224725",
        avatar_url: null,
        referral_code: "K7M2Q9XHRT",
        updated_at: "2026-11-20T09:41:52.000Z",
        stats: { total_points: 340, pending_points: 0, total_stores: 2, total_referrals: 1, total_rewards_redeemed: 3 }
      }
    ]
  })
export type UserProfile = z.infer<typeof UserProfile>

export const ProfileUpdated = z.object({
  message: z.string(),
  user: z.object({ id: UserId, nome: z.string(), email: z.string(), telefone: z.string().nullable() })
})
