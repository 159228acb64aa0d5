import { Effect } from "effect"
import { accountProcedure, callerAddress, refuses, router, runEffect, userProcedure } from "../trpc.js"
import {
  LoginInput,
  LogoutInput,
  Message,
  ProfileUpdated,
  RefreshInput,
  RegisterInput,
  RequestPasswordResetInput,
  ResetPasswordInput,
  Session,
  TokenPair,
  UpdateProfileInput,
  UserProfile,
  VerifyEmailInput
} from "./contracts.js"
import { Accounts } from "./service.js"

const tags = ["Authentication"]

export const authRouter = router({
  register: accountProcedure
    .concat(refuses("EMAIL_TAKEN"))
    .meta({
      successStatus: 201,
      location: "/users/me",
      openapi: {
        method: "POST",
        path: "/auth/register",
        tags,
        summary: "Create an account",
        description:
          "Returns a token pair and sends a link that verifies the email. Points a store credited to " +
          "this email show once it is verified."
      }
    })
    .input(RegisterInput)
    .output(Session)
    .mutation(({ ctx, input }) => runEffect(ctx, Accounts.register(input))),

  login: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/login",
        tags,
        summary: "Log in",
        description:
          "A wrong email or password gives the same 401. Each try counts before its password is checked: " +
          "past 5 failures for one account (20 for one address), even in parallel, each try waits longer " +
          "(429 with Retry-After), and 10 (100) lock it for a while; a password-reset link gets the owner " +
          "in meanwhile. 503 with Retry-After when too many password checks are waiting."
      }
    })
    .input(LoginInput)
    .output(Session)
    .mutation(({ ctx, input }) =>
      runEffect(
        ctx,
        Effect.flatMap(callerAddress(ctx), (address) => Accounts.login(input, address))
      )
    ),

  refresh: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/refresh",
        tags,
        summary: "Exchange a refresh token for a new pair",
        description:
          "Each refresh token works once. Presenting one that was already exchanged ends the whole session " +
          "(every refresh and access token of that login, at once), as it may have been stolen."
      }
    })
    .input(RefreshInput)
    .output(TokenPair)
    .mutation(({ ctx, input }) => runEffect(ctx, Accounts.refresh(input.refresh_token))),

  logout: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/logout",
        tags,
        summary: "End the session of a refresh token",
        description: "Its refresh token and every access token issued with it stop working at once."
      }
    })
    .input(LogoutInput)
    .output(Message)
    .mutation(({ ctx, input }) => runEffect(ctx, Accounts.logout(input.refresh_token))),

  verifyEmail: accountProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/verify-email",
        tags,
        summary: "Verify the account's email with the emailed token",
        description:
          "Each link works once; a used, expired or altered one is a 404. The proof ends every session opened " +
          "before it: log in again to see the stores' points."
      }
    })
    .input(VerifyEmailInput)
    .output(Message)
    .mutation(({ ctx, input }) => runEffect(ctx, Accounts.verifyEmail(input.token))),

  requestPasswordReset: accountProcedure
    .meta({
      successStatus: 202,
      openapi: {
        method: "POST",
        path: "/auth/request-password-reset",
        tags,
        summary: "Email a password-reset link",
        description:
          "The same answer whether or not the email has an account. An account gets at most 3 emails " +
          "(verification and reset) an hour: past them the answer is the same and nothing is sent."
      }
    })
    .input(RequestPasswordResetInput)
    .output(Message)
    .mutation(({ ctx, input }) => runEffect(ctx, Accounts.requestPasswordReset(input.email))),

  resetPassword: accountProcedure
    .concat(refuses("NOT_FOUND"))
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/reset-password",
        tags,
        summary: "Set a new password with the emailed token",
        description: "Ends every session of the account, its access tokens included, at once. Each link works once."
      }
    })
    .input(ResetPasswordInput)
    .output(Message)
    .mutation(({ ctx, input }) => runEffect(ctx, Accounts.resetPassword(input.token, input.password)))
})

export const usersRouter = router({
  me: userProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/users/me",
        tags: ["Users"],
        summary: "The user's profile and totals",
        description: "`stats` counts the stores' points only once the email is verified."
      }
    })
    .output(UserProfile)
    .query(({ ctx }) => runEffect(ctx, Accounts.me(ctx.userId))),

  updateProfile: userProcedure
    .meta({ openapi: { method: "PUT", path: "/users/profile", tags: ["Users"], summary: "Change name, phone or CPF" } })
    .input(UpdateProfileInput)
    .output(ProfileUpdated)
    .mutation(({ ctx, input }) => runEffect(ctx, Accounts.updateProfile(ctx.userId, input)))
})
