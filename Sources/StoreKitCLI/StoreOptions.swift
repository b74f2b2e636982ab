import AppStoreEngine
import AppStoreHosting
import ArgumentParser
import Foundation
import StoreKitConfiguration

/// Where the embedded store lives: the options every store command shares.
struct StoreLocationOptions: ParsableArguments {
    /// The help of `--data-dir`, which commands that name their tenant otherwise (`storekit tenants`) share.
    static let dataDirectoryHelp = ArgumentHelp(
        "The directory that holds the store (database, certificates, device state); $XDG_DATA_HOME/openstorekit, else ~/.local/share/openstorekit unless given. (env: \(EnvironmentVariables.dataDirectory))",
        valueName: "dir"
    )

    @Option(name: .customLong("data-dir"), help: dataDirectoryHelp)
    var dataDirectory: String?

    @Option(help: ArgumentHelp(
        "The isolated store (tenant) inside the data directory; default unless given. (env: \(EnvironmentVariables.tenant))",
        valueName: "name"
    ))
    var tenant: String?

    @Option(name: .customLong("database"), help: ArgumentHelp(
        "A postgres:// URL: keep the store in that PostgreSQL database instead of the data directory's SQLite file. Servers and commands given the same URL share one store and one certificate authority (copied into each data directory's ca/); device state stays in the data directory. (env: \(EnvironmentVariables.databaseURL))",
        valueName: "url"
    ))
    var database: String?

    /// The resolved data directory.
    var directory: StoreDataDirectory { StoreDataDirectory.resolve(explicit: dataDirectory) }

    /// The resolved tenant.
    var resolvedTenant: String {
        tenant ?? EnvironmentVariables.value(EnvironmentVariables.tenant, in: ProcessInfo.processInfo.environment)
            ?? StoreDefaults.tenant
    }

    /// Opens the store with `configuration`'s catalog and settings, or an empty catalog when none is given.
    func openStore(configuration: StoreKitConfigurationFile? = nil) throws -> StoreEngine {
        do {
            return try StoreFactory.openWithLinkedDatabases(StoreSpecification(
                location: .dataDirectory(directory), configuration: configuration, tenant: resolvedTenant, databaseURL: database
            ))
        } catch {
            throw ValidationError(error.message)
        }
    }
}

/// Loads a `.storekit` file, turning its errors into the command's error output.
func loadConfiguration(_ path: String) throws -> StoreKitConfigurationFile {
    do {
        return try StoreKitConfigurationFile.load(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw ValidationError(error.description)
    }
}

/// Parses a transaction identifier argument.
func parseTransactionID(_ text: String) throws -> UInt64 {
    guard let id = UInt64(text) else {
        throw ValidationError("\"\(text)\" is not a transaction identifier. Use the number `storekit tx list` prints, e.g. 2000000000000001.")
    }
    return id
}

/// Writes a value as pretty, key-sorted JSON on standard output.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// The app's bundle identifier a command acts for unless told otherwise: `$OPENSTOREKIT_BUNDLE_ID`, else
/// `com.example.app`.
var environmentBundleID: String {
    EnvironmentVariables.value(EnvironmentVariables.bundleID, in: ProcessInfo.processInfo.environment) ?? StoreDefaults.bundleID
}
