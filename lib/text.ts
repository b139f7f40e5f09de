/**
 * Text to be written to a terminal, without control characters (C0, DEL, C1) but newline and
 * tab: escape sequences would act there (clipboard writes, window titles, clearing the screen).
 */
export const terminalSafe = (text: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
  text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "");

/**
 * What a terminal shows first: the namespace's connection announcement, safe for a terminal,
 * its lines ended with CR LF; nothing without an announcement.
 */
export const terminalGreeting = (announcement: string) =>
  announcement ? `${terminalSafe(announcement).replace(/\n/g, "\r\n")}\r\n` : "";
