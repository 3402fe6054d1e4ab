/**
 * Which sidecar versions this plugin works with. The plugin and the sidecar are released together
 * at one version (scripts/version.py keeps them so); a sidecar of another release series is
 * refused. A series is the major version, or MAJOR.MINOR while the major is 0 (semver: anything
 * may change before 1.0).
 */

/** The Python package the set-up installs. */
export const SIDECAR_PACKAGE = "ora-vault-sidecar";

interface Semver {
	major: number;
	minor: number;
	patch: number;
}

export function parseVersion(text: string): Semver | null {
	const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
	if (!match) return null;
	return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

function series(v: Semver): string {
	return v.major === 0 ? `0.${v.minor}` : `${v.major}`;
}

/** The pip requirement for sidecars this plugin supports, e.g. `ora-vault-sidecar>=0.1,<0.2`. */
export function sidecarRequirement(pluginVersion: string): string {
	const v = parseVersion(pluginVersion);
	if (!v) return SIDECAR_PACKAGE;
	const upper = v.major === 0 ? `0.${v.minor + 1}` : `${v.major + 1}`;
	return `${SIDECAR_PACKAGE}>=${series(v)},<${upper}`;
}

/**
 * Null when the sidecar is supported, else a message that says which way to upgrade: the sidecar
 * (older than the plugin's series) or the plugin (the sidecar is newer).
 */
export function versionRefusal(sidecarVersion: string, pluginVersion: string): string | null {
	const sidecar = parseVersion(sidecarVersion);
	const plugin = parseVersion(pluginVersion);
	if (!plugin) return null; // a development build without a release version checks nothing
	const wanted = `${series(plugin)}.x`;
	if (!sidecar) {
		return `The sidecar reports version "${sidecarVersion}", which this plugin (${pluginVersion}) cannot check; it needs ${wanted}. ${upgradeSidecar(pluginVersion)}`;
	}
	if (series(sidecar) === series(plugin)) return null;
	const older = sidecar.major < plugin.major || (sidecar.major === plugin.major && sidecar.minor < plugin.minor);
	const head = `The sidecar is version ${sidecarVersion}; this plugin (${pluginVersion}) needs ${wanted}.`;
	if (older) return `${head} ${upgradeSidecar(pluginVersion)}`;
	return `${head} Update the plugin in Settings → Community plugins, or install a sidecar of the ${wanted} series: pip install "${sidecarRequirement(pluginVersion)}".`;
}

function upgradeSidecar(pluginVersion: string): string {
	return `Upgrade the sidecar in Settings → Ora Vault → Sidecar installation, or run: pip install --upgrade "${sidecarRequirement(pluginVersion)}" (pipx: pipx install --force "${sidecarRequirement(pluginVersion)}").`;
}
