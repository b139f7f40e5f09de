/**
 * Text to be written to a terminal, without control characters (C0, DEL, C1) but newline and
 * tab: escape sequences would act there (clipboard writes, window titles, clearing the screen).
 */
export const terminalSafe = (text: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
  text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "");
