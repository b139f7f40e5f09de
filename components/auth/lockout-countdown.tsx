"use client";

import { useEffect, useState } from "react";

const twoDigits = (value: number) => String(value).padStart(2, "0");

/** "Try again in 4:59", counting down to `until` (epoch seconds); `onEnd` when it reaches zero. */
export function LockoutCountdown({ until, onEnd }: { until: number; onEnd?: () => void }) {
  const [now, setNow] = useState(() => Date.now());
  const left = Math.max(0, Math.ceil(until - now / 1000));
  useEffect(() => {
    if (left === 0) {
      onEnd?.();
      return;
    }
    const timer = setTimeout(() => setNow(Date.now()), 1000);
    return () => clearTimeout(timer);
  }, [left, onEnd]);
  const minutes = Math.floor(left / 60);
  return (
    <span>
      Too many failed attempts from this address. Try again in{" "}
      <time dateTime={`PT${left}S`} className="font-semibold tabular-nums">
        {minutes}:{twoDigits(left % 60)}
      </time>
      .
    </span>
  );
}
