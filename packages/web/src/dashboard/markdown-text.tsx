import Markdown from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';

/**
 * A text widget's Markdown (issue 23 item 1), sanitised: rehype-sanitize's GitHub schema drops
 * scripts, event handlers, `javascript:` links and raw HTML it does not allow, so that a draft's
 * text can never run code in a viewer's page. A heading widget is the same text, drawn larger.
 */
export function MarkdownText({ text, heading = false }: { text: string; heading?: boolean }) {
  return (
    <div className={heading ? 'tsr-text tsr-text-heading' : 'tsr-text'}>
      <Markdown rehypePlugins={[rehypeSanitize]}>{text}</Markdown>
    </div>
  );
}
