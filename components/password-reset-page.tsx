import { PasswordResetForm } from "./password-reset-form";
import { Outcome, PlainPage } from "./plain-page";

/** The page of the password-recovery link, under either of its routes. */
export function PasswordResetPage({ uid, token }: { uid: unknown; token: unknown }) {
  return (
    <PlainPage title="Choose a new password">
      {typeof uid === "string" && typeof token === "string" ? (
        <PasswordResetForm uid={uid} token={token} />
      ) : (
        <Outcome kind="failed">This link is incomplete: open the link of the e-mail as it is.</Outcome>
      )}
    </PlainPage>
  );
}
