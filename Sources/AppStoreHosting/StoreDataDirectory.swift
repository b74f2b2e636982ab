public import AppStoreEngine
import AppStoreFormats
public import Foundation

/// The layout of a data directory: where a store keeps its database, its certificate authority and the state of
/// its simulated devices. The storage itself is ``StoreFactory``'s business; this type only knows the paths.
///
/// The directory is, in order of preference: the one given explicitly (`--data-dir`), the
/// `OPENSTOREKIT_DATA_DIR` environment variable, `$XDG_DATA_HOME/openstorekit`, and
/// `~/.local/share/openstorekit` (on macOS `~/Library/Application Support/OpenStoreKit`).
public struct StoreDataDirectory: Sendable, Hashable {
    /// The directory itself.
    public let url: URL

    /// Uses `url` as the data directory.
    public init(url: URL) {
        self.url = url.standardizedFileURL
    }

    /// Resolves the data directory from an explicit path, else the environment, else the per-user default.
    public static func resolve(explicit path: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) -> StoreDataDirectory {
        if let path, !path.isEmpty { return StoreDataDirectory(url: URL(fileURLWithPath: path)) }
        if let path = EnvironmentVariables.value(EnvironmentVariables.dataDirectory, in: environment) {
            return StoreDataDirectory(url: URL(fileURLWithPath: path))
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        #if os(macOS)
        return StoreDataDirectory(url: home.appendingPathComponent("Library/Application Support/OpenStoreKit"))
        #else
        if let xdg = EnvironmentVariables.value(EnvironmentVariables.xdgDataHome, in: environment) {
            return StoreDataDirectory(url: URL(fileURLWithPath: xdg).appendingPathComponent("openstorekit"))
        }
        return StoreDataDirectory(url: home.appendingPathComponent(".local/share/openstorekit"))
        #endif
    }

    /// The SQLite database of the store.
    public var databaseURL: URL { url.appendingPathComponent("store.sqlite") }

    /// The certificate authority's keys and certificates.
    public var certificateAuthorityURL: URL { url.appendingPathComponent("ca", isDirectory: true) }

    /// The TLS root and the server certificate `storekit serve --https-port` presents, apart from the signing authority
    /// (`storekit ca export --tls`).
    public var tlsURL: URL { url.appendingPathComponent("tls", isDirectory: true) }

    /// Where versions before keys were kept in storage kept the App Store Server API keys `storekit serve` accepts
    /// tokens from; `storekit serve` and `storekit keys` move them into storage, and rename the file
    /// `api-keys.json.imported`.
    public var apiKeysURL: URL { url.appendingPathComponent("api-keys.json") }

    /// The folder where versions before storage kept a tenant's catalog, API keys and notification URLs
    /// (`<tenant>.storekit`, `<tenant>.api-keys.json`, `<tenant>.notification-urls.json`), which `storekit serve` moves
    /// into storage and renames `*.imported`.
    public var tenantCatalogsURL: URL { url.appendingPathComponent("tenants", isDirectory: true) }

    /// The state of one simulated device (unfinished transactions, receipt).
    public func deviceURL(_ deviceID: UUID) -> URL {
        url.appendingPathComponent("devices", isDirectory: true).appendingPathComponent(deviceID.uuidString, isDirectory: true)
    }
}

extension StoreDataDirectory {
    /// The signer of the store in this directory: its certificate authority, loaded (or generated and
    /// kept under `ca/`, private keys readable by the owner only) on the first signature.
    public var signer: StoreSigner {
        let url = certificateAuthorityURL
        return StoreSigner { try CertificateAuthority.loadOrCreate(in: url) }
    }
}
