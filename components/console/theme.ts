export const themes = ["system", "light", "dark"] as const;
export type Theme = (typeof themes)[number];

/** The cookie (read by the server for the first paint) and localStorage key of the choice. */
export const themeKey = "theme";

export const parseTheme = (value: string | null | undefined): Theme =>
  themes.includes(value as Theme) ? (value as Theme) : "system";

/**
 * Runs in <head> before the first paint: sets the `dark` class from the stored choice, so a dark
 * page never flashes light. It also follows the system while the choice is "system".
 */
export const themeScript = `(function(){try{
var k=${JSON.stringify(themeKey)},m=document.cookie.match(/(?:^|; )theme=(system|light|dark)/);
var t=(m&&m[1])||localStorage.getItem(k)||"system",q=matchMedia("(prefers-color-scheme: dark)");
function a(){var d=t==="dark"||(t==="system"&&q.matches);var e=document.documentElement;e.classList.toggle("dark",d);e.style.colorScheme=d?"dark":"light";}
a();q.addEventListener("change",function(){t=(document.cookie.match(/(?:^|; )theme=(system|light|dark)/)||[])[1]||"system";a();});
}catch(e){}})();`;

/** Stores the choice and applies it at once. */
export function applyTheme(theme: Theme) {
  // biome-ignore lint/suspicious/noDocumentCookie: the server reads this cookie for the first paint
  document.cookie = `${themeKey}=${theme}; path=/; max-age=31536000; samesite=lax`;
  localStorage.setItem(themeKey, theme);
  const dark = theme === "dark" || (theme === "system" && matchMedia("(prefers-color-scheme: dark)").matches);
  document.documentElement.classList.toggle("dark", dark);
  document.documentElement.style.colorScheme = dark ? "dark" : "light";
}
