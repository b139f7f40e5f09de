"use client";

import type { ReactNode } from "react";
import { Button, Callout } from "./controls";
import { Dialog, DialogButtons } from "./dialog";

/**
 * The question before a destructive action: it names the object and the consequence, the red
 * button is named after the verb, and a refusal stays in the dialog so the person can retry.
 */
export function ConfirmDialog({
  isOpen,
  onClose,
  title,
  description,
  confirmLabel,
  isPending,
  failure,
  onConfirm,
}: {
  isOpen: boolean;
  onClose: () => void;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  isPending: boolean;
  /** The server's refusal of the last try, as a sentence. */
  failure?: string;
  onConfirm: () => void;
}) {
  return (
    <Dialog isOpen={isOpen} onClose={onClose} title={title} description={description}>
      {failure && <Callout kind="error">{failure}</Callout>}
      <DialogButtons onCancel={onClose}>
        <Button variant="danger" isPending={isPending} onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </DialogButtons>
    </Dialog>
  );
}
