/**
 * Input methods (Chinese, Japanese, Korean) compose a word over several key presses: the arrows
 * move among the candidates, Enter picks one, and the text in the box meanwhile is the reading
 * typed so far ("nihon", "にほn"), not the word. Such presses are not commands, and such text is
 * not a query.
 */

/** Whether `evt` (a key press or an input) belongs to a composition. Safari marks the Enter that
 * ends one only by the legacy keyCode 229. */
export function composing(evt: Event): boolean {
	// Read by their names, not `instanceof`: an event of a popout window is of that window's classes.
	const marks = evt as Event & { isComposing?: boolean; keyCode?: number };
	return marks.isComposing === true || marks.keyCode === 229;
}

/** Listens through `listen` (a view's `registerDomEvent`, for its cleanup) for the compositions
 * of an input; `active` while one is under way, `ended` called with the word once it is picked. */
export function watchComposition(
	listen: (type: "compositionstart" | "compositionend", handler: () => void) => void,
	ended: () => void,
): { readonly active: boolean } {
	const state = { active: false };
	listen("compositionstart", () => (state.active = true));
	listen("compositionend", () => {
		state.active = false;
		ended();
	});
	return state;
}
