/** "3 of 5 accepted devices" over a bar that turns amber at 90 % and red at the limit (-1: no limit). */
export function UsageBar({ used, limit }: { used: number; limit: number }) {
  const isCapped = limit >= 0;
  const share = isCapped ? Math.min(1, limit === 0 ? 1 : used / limit) : 0;
  const tone = share >= 1 ? "bg-red-600" : share >= 0.9 ? "bg-amber-500" : "bg-indigo-600";
  return (
    <>
      <p className="text-sm">
        <strong>{used.toLocaleString()}</strong> {isCapped ? `of ${limit.toLocaleString()} ` : ""}accepted devices
        {isCapped ? "" : " (no limit)"}
      </p>
      {isCapped && (
        <div aria-hidden className="h-2 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800">
          <div className={`h-full rounded-full ${tone}`} style={{ width: `${share * 100}%` }} />
        </div>
      )}
    </>
  );
}
