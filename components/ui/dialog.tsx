"use client";

import { type ReactNode, useEffect, useId, useRef } from "react";
import { Button, Callout } from "./controls";

/**
 * A modal dialog on the browser's own `<dialog>`: focus stays inside, Escape closes it, and focus
 * returns to where it was. `onClose` is called however it closes.
 */
export function Dialog({
  isOpen,
  onClose,
  title,
  description,
  children,
}: {
  isOpen: boolean;
  onClose: () => void;
  title: string;
  description?: ReactNode;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (isOpen && !element.open) element.showModal();
    if (!isOpen && element.open) element.close();
  }, [isOpen]);
  return (
    <dialog
      ref={dialog}
      onClose={onClose}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-xl border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      {isOpen && (
        <div className="grid gap-4 p-5">
          <h2 id={titleId} className="text-base font-semibold">
            {title}
          </h2>
          {description && (
            <div id={descriptionId} className="text-sm text-slate-700 dark:text-slate-300">
              {description}
            </div>
          )}
          {children}
        </div>
      )}
    </dialog>
  );
}

/**
 * The named confirmation of a destructive action: the title names the object, the description
 * the consequence, the red button the verb. A refusal stays in the dialog, which stays open.
 */
export function ConfirmDialog({
  isOpen,
  onClose,
  title,
  description,
  confirmLabel,
  cancelLabel = "Cancel",
  isPending,
  error,
  onConfirm,
}: {
  isOpen: boolean;
  onClose: () => void;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  isPending: boolean;
  error?: string;
  onConfirm: () => void;
}) {
  return (
    <Dialog isOpen={isOpen} onClose={onClose} title={title} description={description}>
      {error && <Callout kind="error">{error}</Callout>}
      <div className="flex justify-end gap-2">
        <Button variant="secondary" onClick={onClose}>
          {cancelLabel}
        </Button>
        <Button variant="danger" isPending={isPending} onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </div>
    </Dialog>
  );
}
