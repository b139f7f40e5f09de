"use client";

import ReactMarkdown from "react-markdown";

/**
 * Markdown written by the service's operators, shown safely: raw HTML in it is not rendered
 * (`skipHtml`), `javascript:` and other unsafe link targets are dropped by its URL
 * filter, and links open in a new tab without handing it this page (`rel="noopener noreferrer"`).
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="grid gap-2 text-sm leading-6 [&_a]:font-medium [&_a]:text-indigo-700 [&_a]:underline dark:[&_a]:text-indigo-300 [&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 dark:[&_code]:bg-slate-800 [&_h1]:text-lg [&_h1]:font-semibold [&_h2]:font-semibold [&_h3]:font-semibold [&_ol]:list-decimal [&_ol]:pl-5 [&_ul]:list-disc [&_ul]:pl-5">
      <ReactMarkdown
        skipHtml
        components={{
          a: ({ node: _node, ...link }) => <a {...link} target="_blank" rel="noopener noreferrer" />,
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
