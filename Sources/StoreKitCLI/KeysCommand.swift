import AppStoreEngine
import AppStoreHosting
import AppStoreServer
import ArgumentParser
import Foundation

/// `storekit keys`: the In-App Purchase keys App Store Server API requests are signed with.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage the keys that sign App Store Server API requests to `storekit serve`.",
        discussion: """
            As in App Store Connect, a key has an ID and belongs to an issuer; its private half is a .p8 file that \
            only you keep, and a backend signs its requests' bearer tokens with it (Apple's AppStoreServerAPIClient \
            takes the .p8's contents, the key ID, the issuer ID and the bundle ID). The store keeps the public half in \
            its storage (the data directory's database, or the PostgreSQL database of --database); every \
            `storekit serve` on that storage accepts tokens signed by any key there that is not revoked, including \
            keys made or revoked while it runs. A running server also makes, lists and revokes keys through its \
            control API (/control/keys).

            A key is the server's, valid for every tenant, unless --tenant (or OPENSTOREKIT_TENANT) names one: then it \
            signs for that tenant alone, and a request at Apple's own paths signed with it (no /t/{tenant}/, as \
            Apple's libraries send it to https://api.storekit-sandbox.apple.com) reaches that tenant. So parallel \
            backend tests, each with a tenant and a key of its own, run unchanged code side by side.

            Keys an older version kept in <data-dir>/api-keys.json (and a tenant's in \
            tenants/<name>.api-keys.json) are moved into storage once, and each file renamed *.imported.

            Examples:
              storekit keys create --issuer 57246542-96fe-1a63-e053-0824d011072a
              storekit keys create --issuer 57246542-96fe-1a63-e053-0824d011072a --tenant checkout-42
              storekit keys list
              storekit keys revoke 2X9R4HXF34
            """,
        subcommands: [Create.self, List.self, Revoke.self]
    )

    /// `storekit keys create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Make a key: write its private half as SubscriptionKey_<ID>.p8 and print the key ID.",
            discussion: """
                Example:
                  storekit keys create --issuer 57246542-96fe-1a63-e053-0824d011072a --out ~/keys
                """
        )

        @Option(help: ArgumentHelp("The issuer ID the key belongs to (any text; App Store Connect uses a UUID).", valueName: "id"))
        var issuer: String

        @Option(help: ArgumentHelp("The directory to write the .p8 file to.", valueName: "dir"))
        var out: String = "."

        @OptionGroup var location: StoreLocationOptions

        func validate() throws {
            guard !issuer.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("--issuer is empty. Give the issuer ID your backend puts in its tokens' iss claim.")
            }
        }

        func run() async throws {
            let (key, privateKeyPEM) = try await keyRing(location).create(issuerID: issuer, created: SystemClock().now())
            let file = URL(fileURLWithPath: out).appendingPathComponent("SubscriptionKey_\(key.keyID).p8")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(privateKeyPEM.utf8).write(to: file, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            print(key.keyID)
            FileHandle.standardError.write(Data("Wrote the private key to \(file.path); the store accepts tokens signed with it (kid \(key.keyID), iss \(issuer)).\n".utf8))
        }
    }

    /// `storekit keys list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the server's keys (with --tenant, that tenant's own): ID, issuer, created, revoked."
        )

        @OptionGroup var location: StoreLocationOptions

        func run() async throws {
            for key in try await keyRing(location).keys() {
                print("\(key.keyID)  issuer \(key.issuerID)  created \(key.created.formatted(.iso8601))\(key.revoked ? "  revoked" : "")")
            }
        }
    }

    /// `storekit keys revoke`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Revoke a key: the store, running or started later, refuses its tokens with 401."
        )

        @Argument(help: "The key ID.")
        var keyID: String

        @OptionGroup var location: StoreLocationOptions

        func run() async throws {
            // Key IDs are unique across the storage: the key is revoked wherever it is kept.
            let storage = try location.openStore().storage
            try await importKeyFiles(location, into: storage)
            guard let stored = try await storage.apiKey(id: keyID),
                  try await ServerAPIKeyRing(storage: storage, tenant: stored.tenant).revoke(keyID) != nil else {
                throw ValidationError("No key \(keyID) in this store. `storekit keys list` (with --tenant NAME for a tenant's) shows its keys.")
            }
        }
    }
}

/// The keys of the store `location` names, in its storage: the tenant's own when it names a tenant, else the
/// server's.
func keyRing(_ location: StoreLocationOptions) async throws -> ServerAPIKeyRing {
    let storage = try location.openStore().storage
    try await importKeyFiles(location, into: storage)
    let tenant = location.tenant ?? EnvironmentVariables.value(EnvironmentVariables.tenant, in: ProcessInfo.processInfo.environment)
    return ServerAPIKeyRing(storage: storage, tenant: tenant ?? APIKeyRecord.serverWideTenant)
}

/// Moves the key files older versions kept in `location`'s data directory into `storage`, the storage of the store
/// `location` names, saying so when there were any.
func importKeyFiles(_ location: StoreLocationOptions, into storage: any Storage) async throws {
    let directory = location.directory
    let imported: Int
    do {
        imported = try await ServerAPIKeyRing.importKeyFiles(serverFile: directory.apiKeysURL, tenantFolder: directory.tenantCatalogsURL, into: storage)
    } catch {
        throw ValidationError(error.message)
    }
    if imported > 0 {
        FileHandle.standardError.write(Data("Moved \(imported) App Store Server API key(s) from \(directory.url.path)'s api-keys.json files into the store's storage; the files are renamed *.imported.\n".utf8))
    }
}

/// Moves the catalogs an earlier version kept in the data directory's `tenants/<name>.storekit` files into the tenants'
/// storage, saying so on standard error when there were any; `serverTenant`'s file is left alone.
func importCatalogFiles(_ location: StoreLocationOptions, into storage: any Storage, serverTenant: String) async throws {
    let directory = location.directory
    let imported: Int
    do {
        imported = try await TenantDirectory.importCatalogFiles(tenantFolder: directory.tenantCatalogsURL, into: storage, serverTenant: serverTenant)
    } catch {
        throw ValidationError(error.message)
    }
    if imported > 0 {
        FileHandle.standardError.write(Data("Moved the catalogs of \(imported) tenant(s) from \(directory.tenantCatalogsURL.path)'s *.storekit files into the store's storage; the files are renamed *.imported.\n".utf8))
    }
}

/// Moves the notification URLs an earlier version kept in the data directory's `tenants/<name>.notification-urls.json`
/// files into the tenants' storage, saying so on standard error when there were any.
func importNotificationURLFiles(_ location: StoreLocationOptions, into storage: any Storage) async throws {
    let directory = location.directory
    let imported: Int
    do {
        imported = try await NotificationSender.importDestinationFiles(tenantFolder: directory.tenantCatalogsURL, into: storage)
    } catch {
        throw ValidationError(error.message)
    }
    if imported > 0 {
        FileHandle.standardError.write(Data("Moved the notification URLs of \(imported) tenant(s) from \(directory.tenantCatalogsURL.path)'s *.notification-urls.json files into the store's storage; the files are renamed *.imported.\n".utf8))
    }
}
