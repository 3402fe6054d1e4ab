/**
 * Markdown reduced to the text a reader sees, for one-line snippets: no heading marks, emphasis,
 * code fences, list bullets, quote marks, HTML tags or comments; links become their label.
 */
export function markdownToPlain(markdown: string): string {
	let text = markdown.replace(/\r\n?/g, "\n");
	text = text.replace(/%%[\s\S]*?%%/g, " ").replace(/<!--[\s\S]*?-->/g, " ");
	text = text.replace(/^\s*(```|~~~).*$/gm, "");
	text = text
		.split("\n")
		.map((line) =>
			line
				.replace(/^\s{0,3}#{1,6}\s+/, "")
				.replace(/^\s*>\s?/, "")
				.replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/, "")
				.replace(/^\s*([-*_])(\s*\1){2,}\s*$/, ""),
		)
		.join("\n");
	text = text
		.replace(/!?\[\[([^\]|]*)\|([^\]]*)\]\]/g, "$2")
		.replace(/!?\[\[([^\]#|]*)#?([^\]]*)\]\]/g, (_m, name: string, heading: string) => (name || heading).trim())
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
		.replace(/<\/?[A-Za-z][^>]*>/g, "")
		.replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, "$2")
		.replace(/(^|[^\w*])([*_])(?=\S)([^*_\n]*?\S)\2(?!\w)/g, "$1$3")
		.replace(/~~(?=\S)([\s\S]*?\S)~~/g, "$1")
		.replace(/==(?=\S)([\s\S]*?\S)==/g, "$1")
		.replace(/`([^`]*)`/g, "$1")
		.replace(/(^|\s)#(?=[\p{L}\p{N}_/-]*\p{L})([\p{L}\p{N}_/-]+)/gu, "$1$2");
	return text.replace(/\s+/g, " ").trim();
}
