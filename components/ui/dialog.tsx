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
  isWide,
  isDrawer,
  children,
}: {
  isOpen: boolean;
  onClose: () => void;
  title: string;
  description?: ReactNode;
  /** Room for a form (an editor), not just a question. */
  isWide?: boolean;
  /** A panel along the right edge, the page still in view beside it (details of a row). */
  isDrawer?: boolean;
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
      className={`${isDrawer ? "my-0 mr-0 ml-auto h-dvh max-h-dvh w-full max-w-lg overflow-y-auto border-l" : `m-auto w-[calc(100%-2rem)] ${isWide ? "max-w-2xl" : "max-w-md"} rounded-xl border`} border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100`}
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

/** The buttons at the foot of a dialog: Cancel, then the action (named after its verb). */
export function DialogButtons({ onCancel, children }: { onCancel: () => void; children: ReactNode }) {
  return (
    <div className="flex flex-wrap justify-end gap-2">
      <Button variant="secondary" onClick={onCancel}>
        Cancel
      </Button>
      {children}
    </div>
  );
}

/**
 * A dialog that asks before a destructive action: it names the object and the consequence, the
 * red button is named after the verb, and a failure stays in the dialog for another try.
 */
export function ConfirmDialog({
  isOpen,
  onClose,
  title,
  description,
  confirmLabel,
  onConfirm,
  isPending,
  failure,
  canConfirm = true,
  children,
}: {
  isOpen: boolean;
  onClose: () => void;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  isPending: boolean;
  /** The failure's text, shown above the buttons. */
  failure?: string;
  /** False until what must be typed to confirm is typed. */
  canConfirm?: boolean;
  children?: ReactNode;
}) {
  return (
    <Dialog isOpen={isOpen} onClose={onClose} title={title} description={description}>
      {failure && <Callout kind="error">{failure}</Callout>}
      {children}
      <DialogButtons onCancel={onClose}>
        <Button variant="danger" disabled={!canConfirm} isPending={isPending} onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </DialogButtons>
    </Dialog>
  );
}
