import AppStoreEngine
import AppStoreHosting
import AppStoreServer
import ArgumentParser
import Foundation
import StoreKitConfiguration

/// `storekit tenants …`: the isolated stores (tenants) of a running server or a data directory — list, create, reset,
/// delete, export and import them.
struct TenantsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenants",
        abstract: "List, create, reset, delete, export and import tenants: the isolated stores a server or data directory holds.",
        discussion: """
        A tenant is a store of its own — its own catalog, clock, accounts, transactions and notifications — that \
        a backend test or a scenario uses alone; a server serves each under /t/{name}/, and every other command \
        picks one with --tenant. These commands are the control API's server-wide routes (/control/tenants…, at \
        the server's root, never under /t/{tenant}/).

        With --server URL (or $OPENSTOREKIT_SERVER) they act on a running `storekit serve`. Without it, they act \
        on the storage itself — the data directory's database, or the PostgreSQL database of --database —, which \
        every server on it sees at once: a tenant created there is served by a `storekit serve` on the same storage, \
        running or started later.

        Without a subcommand, `storekit tenants` lists the tenants.

        Example:
          storekit tenants --server http://127.0.0.1:8080
          storekit tenants create checkout-42 --config Products.storekit --data-dir .storekit
          storekit tenants create checkout-42 --config Products.storekit --server http://127.0.0.1:8080
          storekit tenants export checkout-42 --out checkout.json --server http://127.0.0.1:8080
          storekit tenants import replay checkout.json --server http://127.0.0.1:8080
          storekit tenants reset checkout-42 --server http://127.0.0.1:8080
          storekit tenants delete checkout-42 --server http://127.0.0.1:8080
        """,
        subcommands: [
            TenantsListCommand.self, TenantsCreateCommand.self, TenantsResetCommand.self, TenantsDeleteCommand.self,
            TenantsExportCommand.self, TenantsImportCommand.self,
        ],
        defaultSubcommand: TenantsListCommand.self
    )
}

/// Where the `storekit tenants` subcommands act: a running server's root, or the data directory.
struct TenantPlaceOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: StoreLocationOptions.dataDirectoryHelp)
    var dataDirectory: String?

    @Option(name: .customLong("database"), help: ArgumentHelp(
        "A postgres:// URL: act on the tenants kept in that PostgreSQL database instead of the data directory's SQLite file. (env: \(EnvironmentVariables.databaseURL))",
        valueName: "url"
    ))
    var database: String?

    @Option(help: ArgumentHelp(
        "A running `storekit serve` whose tenants to act on, through its server-wide control API.",
        discussion: "Defaults to $OPENSTOREKIT_SERVER. Without a server, the commands act on the storage: the data directory, or --database. Example: --server http://127.0.0.1:8080",
        valueName: "url"
    ))
    var server: String?

    /// The server's URL, from `--server` or `$OPENSTOREKIT_SERVER`; `nil` for the data directory.
    func serverURL() throws -> URL? {
        try ServerOptions.serverURL(server)
    }

    /// The server's own paths, where the tenant routes are (never under `/t/{tenant}/`); `nil` for the data directory.
    func serverWideControl() throws -> ServerControl? {
        guard let url = try serverURL() else { return nil }
        return ServerControl(baseURL: url.path.hasSuffix("/") ? url : url.appendingPathComponent("", isDirectory: true))
    }

    /// The resolved data directory.
    var directory: StoreDataDirectory { StoreDataDirectory.resolve(explicit: dataDirectory) }

    /// Opens the tenant `name` of the storage, with an empty catalog: what a tenant holds needs no products.
    func openStore(tenant name: String) throws -> StoreEngine {
        do {
            return try open(tenant: name, configuration: nil)
        } catch {
            throw CommandFailure(error.message)
        }
    }

    /// Opens the tenant `name` of the storage selling `configuration`'s products.
    private func open(tenant name: String, configuration: StoreKitConfigurationFile?) throws(StoreError) -> StoreEngine {
        try StoreFactory.openWithLinkedDatabases(StoreSpecification(
            location: .dataDirectory(directory), configuration: configuration, tenant: name, databaseURL: database
        ))
    }

    /// The tenants of the storage, as a server on it holds them: each one opened, when a command needs it, with the
    /// catalog stored for it.
    func storageTenants() throws -> TenantDirectory {
        let storage = try openStore(tenant: StoreDefaults.tenant).storage
        return TenantDirectory(storage: storage) { name, catalog throws(StoreError) in
            TenantDirectory.Tenant(engine: try open(tenant: name, configuration: catalog))
        }
    }

    /// Where the tenants are, for messages: the server's address, the database or the data directory.
    var placeDescription: String {
        get throws {
            if let server = try serverURL() { return "the server at \(server.absoluteString)" }
            if database != nil { return "the database given with --database" }
            return directory.url.path
        }
    }

    /// Where the tenant `name` is, for messages.
    func location(of name: String) throws -> String {
        "tenant \(name) \(try serverURL() == nil ? "in" : "on") \(try placeDescription)"
    }
}

/// Checks a tenant name as the server does.
func validateTenantName(_ name: String) throws {
    guard TenantDirectory.isValidName(name) else {
        throw ValidationError("\"\(name)\" is not a tenant name: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit, e.g. checkout-42.")
    }
}

/// How much a tenant holds: what a reset erases and an import brings.
struct TenantContents: Codable, Equatable {
    var accounts: Int
    var transactions: Int
    var subscriptions: Int
    var notifications: Int

    init(_ snapshot: TenantSnapshot) {
        accounts = snapshot.accounts.count
        transactions = snapshot.transactions.count
        subscriptions = snapshot.subscriptions.count
        notifications = snapshot.notifications.count
    }

    /// For people: `3 accounts, 12 transactions, 2 subscriptions, 9 notifications`.
    var text: String {
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        return [count(accounts, "account"), count(transactions, "transaction"), count(subscriptions, "subscription"), count(notifications, "notification")]
            .joined(separator: ", ")
    }
}

/// A tenant as `POST /control/tenants` and its reset answer it.
struct TenantAnswer: Codable {
    var name: String
    /// Where its routes are, from the server's root: `/t/{name}/`.
    var path: String
    var products: Int
}

/// `storekit tenants list`: the tenants of a server or of the storage.
struct TenantsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the tenants of a running server or of the storage: every tenant with anything stored, and those a server opened.",
        discussion: """
        One line per tenant: its name, where it is served (with --server), how many products it sells (when the \
        server has it open) and whose catalog it sells — its own, given when it was created, or the server's (in \
        the storage: the one each command gives with --config). A tenant is listed once anything of it is stored: \
        a purchase, a moved clock, settings, notification URLs, an API key or a catalog. --json prints the control \
        API's entries (GET /control/tenants).

        Example:
          storekit tenants list --server http://127.0.0.1:8080
          OPENSTOREKIT_SERVER=http://127.0.0.1:8080 storekit tenants list --json
          storekit tenants list --data-dir .storekit
          storekit tenants list --database postgres://storekit@127.0.0.1/storekit
        """
    )

    @OptionGroup var place: TenantPlaceOptions

    @Flag(help: "Print a JSON array.")
    var json = false

    func run() async throws {
        let server = try place.serverWideControl()
        let tenants: [TenantSummary]
        if let server {
            let answer: [String: [TenantSummary]] = try await server.call(.listTenants)
            tenants = answer["tenants"] ?? []
        } else if place.database == nil, !FileManager.default.fileExists(atPath: place.directory.databaseURL.path) {
            tenants = [] // Nothing was ever stored there, and listing makes nothing.
        } else {
            let directory = try place.storageTenants()
            do throws(StoreError) {
                tenants = try await directory.summaries()
            } catch {
                throw CommandFailure(error.message)
            }
        }
        if json {
            try printJSON(tenants)
            return
        }
        guard !tenants.isEmpty else {
            let create = "storekit tenants create NAME --config FILE" + (try place.serverURL().map { " --server \($0.absoluteString)" } ?? "")
            print("No tenants in \(try place.placeDescription) yet: a tenant is listed once anything of it is stored. Create one with `\(create)`.")
            return
        }
        let width = tenants.map(\.name.count).max() ?? 0
        for tenant in tenants {
            let name = tenant.name.padding(toLength: width, withPad: " ", startingAt: 0)
            guard let server else {
                print("\(name)  \(tenant.hasOwnCatalog ? "its own catalog" : "the catalog each command gives (--config)")")
                continue
            }
            let products = tenant.products.map { "\($0) product\($0 == 1 ? "" : "s")" } ?? "not opened since the server started"
            let catalog = tenant.hasOwnCatalog ? "its own catalog" : "the server's catalog"
            let address = server.baseURL.appendingPathComponent("t/\(tenant.name)/").absoluteString
            print("\(name)  \(address)  \(products), \(catalog)")
        }
    }
}

/// `storekit tenants create`: a new tenant, selling a catalog of its own.
struct TenantsCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a tenant on a running server or in the storage, selling a .storekit file's products (on a server, the server's without one).",
        discussion: """
        The new tenant is empty and its clock at wall time; its catalog is stored with the tenant, so every server \
        on the same storage sells it and a restart opens it with the same. A name already taken is refused: reset \
        that tenant (`storekit tenants reset NAME`) or pick another name. Afterwards every command acts on it with \
        --tenant NAME (and --server URL). --json prints the control API's answer (POST /control/tenants).

        Without --server it is made in the storage — the data directory, or --database —, where --config is \
        needed: a tenant without a catalog of its own needs no creating there, since the first command given \
        --tenant NAME makes it.

        Example:
          storekit tenants create checkout-42 --config Products.storekit --server http://127.0.0.1:8080
          storekit tenants create scratch --server http://127.0.0.1:8080 --json
          storekit tenants create checkout-43 --config Products.storekit --data-dir .storekit
          storekit purchase com.example.demo.premium --server http://127.0.0.1:8080 --tenant checkout-42
        """
    )

    @Argument(help: ArgumentHelp("The tenant's name: 1 to 64 letters, digits, '.', '_' or '-'.", valueName: "name"))
    var name: String

    @Option(help: ArgumentHelp("The .storekit file the tenant sells; on a server, the server's products without it.", valueName: "file"))
    var config: String?

    @OptionGroup var place: TenantPlaceOptions

    @Flag(help: "Print the tenant as one JSON object.")
    var json = false

    func validate() throws {
        try validateTenantName(name)
        if config == nil, try place.serverURL() == nil {
            throw ValidationError("""
                A tenant made in the storage (no --server) sells the catalog it is created with: give --config FILE. \
                Without a catalog of its own a tenant needs no creating there: the first command given --tenant \
                \(name) makes it, e.g. `storekit purchase PRODUCT --config FILE --tenant \(name)`.
                """)
        }
        // Checked before anything is sent, for the loader's precise errors.
        _ = try config.map(loadConfiguration)
    }

    func run() async throws {
        guard let server = try place.serverWideControl() else {
            try await createInStorage()
            return
        }
        var body: [String: Any] = ["name": name]
        if let config {
            // Sent as the file's own JSON; the server loads it as `storekit serve --config` does.
            body["configuration"] = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: config)))
        }
        let created: TenantAnswer = try await server.call(.createTenant, body: body)
        if json {
            try printJSON(created)
            return
        }
        let address = server.baseURL.appendingPathComponent(String(created.path.drop { $0 == "/" })).absoluteString
        print("Created tenant \(created.name) selling \(created.products) product\(created.products == 1 ? "" : "s") from \(config ?? "the server's catalog"), at \(address)")
        print("Act on it with --server \(try place.serverURL()?.absoluteString ?? server.baseURL.absoluteString) --tenant \(created.name).")
    }

    /// Creates the tenant in the data directory or database, as a server on it would.
    private func createInStorage() async throws {
        guard let config else { return }
        let directory = try place.storageTenants(), configuration = try loadConfiguration(config)
        let products: Int
        do throws(TenantError) {
            products = try await directory.create(name, configuration: configuration).engine.catalog.products.count
        } catch where error.isConflict {
            throw CommandFailure("Tenant \(name) already exists in \(try place.placeDescription). Reset it (`storekit tenants reset \(name)`) or pick another name.")
        } catch {
            throw CommandFailure(error.message)
        }
        if json {
            try printJSON(TenantAnswer(name: name, path: "/t/\(name)/", products: products))
            return
        }
        print("Created tenant \(name) selling \(products) product\(products == 1 ? "" : "s") from \(config), in \(try place.placeDescription)")
        print("Act on it with --tenant \(name)\(place.database == nil ? "" : " --database URL"); a `storekit serve` on this storage serves it at /t/\(name)/.")
    }
}

/// `storekit tenants reset`: a tenant erased, as new.
struct TenantsResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Erase a tenant: its accounts, transactions, subscriptions, notifications, clock and stored settings; prints what it erased.",
        discussion: """
        What the transaction manager page's "Reset store" button does. The tenant keeps its catalog; settings \
        changed with `storekit settings set` are forgotten, so it runs with its configuration's settings again; \
        its clock runs at wall time again and transaction identifiers start over. On a server, devices connected \
        to the tenant look at everything again. It asks for no confirmation, so scripts can use it: export the \
        tenant first (`storekit tenants export`) to keep what it holds.

        With --server it resets the server's tenant (POST /control/tenants/{name}/reset); without, the tenant in \
        the data directory. --json prints {"name", "erased": {"accounts", "transactions", "subscriptions", \
        "notifications"}}.

        Example:
          storekit tenants reset checkout-42 --server http://127.0.0.1:8080
          storekit tenants reset default --server http://127.0.0.1:8080
          storekit tenants reset scenario-1 --data-dir /tmp/store
        """
    )

    @Argument(help: ArgumentHelp("The tenant to reset (`default` is the store of the bare paths).", valueName: "name"))
    var name: String

    @OptionGroup var place: TenantPlaceOptions

    @Flag(help: "Print what was erased as one JSON object.")
    var json = false

    /// What `--json` prints.
    private struct Output: Encodable {
        var name: String
        var erased: TenantContents
    }

    func validate() throws {
        try validateTenantName(name)
    }

    func run() async throws {
        let erased: TenantContents
        if let server = try place.serverWideControl() {
            // What the tenant holds, counted from its export just before the reset.
            let export = try await server.send(.exportTenant, ["name": name])
            erased = TenantContents(try TenantSnapshot.makeDecoder().decode(TenantSnapshot.self, from: export))
            let _: TenantAnswer = try await server.call(.resetTenant, ["name": name])
        } else {
            let store = try place.openStore(tenant: name)
            erased = TenantContents(try await store.exportState())
            try await store.erase()
        }
        if json {
            try printJSON(Output(name: name, erased: erased))
        } else {
            print("Reset \(try place.location(of: name)): erased \(erased.text). Its clock runs at wall time and transaction identifiers start over.")
        }
    }
}

/// `storekit tenants delete`: a tenant gone, with everything it held.
struct TenantsDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a tenant: everything it holds and its configuration. Its name is free again.",
        discussion: """
        Deletes the tenant's accounts, transactions, subscriptions, notification outbox and clock, and its \
        configuration: its own catalog, stored settings and test switches, notification URLs, App Store Server API \
        keys and Retention Messaging content. A server closes it (its notification sender and renewals stop), and \
        every server on the storage finds nothing of it afterwards; a later request to /t/{name}/ starts it anew. \
        The server's own store (`default`, or the server's --tenant) cannot be deleted: reset it. With --server it \
        is the server's DELETE /control/tenants/{name}; without, the storage's tenant.

        Example:
          storekit tenants delete checkout-42 --server http://127.0.0.1:8080
          storekit tenants delete scenario-1 --data-dir /tmp/store
        """
    )

    @Argument(help: ArgumentHelp("The tenant to delete.", valueName: "name"))
    var name: String

    @OptionGroup var place: TenantPlaceOptions

    func validate() throws {
        try validateTenantName(name)
    }

    func run() async throws {
        if let server = try place.serverWideControl() {
            _ = try await server.send(.deleteTenant, ["name": name])
        } else {
            // On the storage, `default` is the store of every command without --tenant and of a server's bare paths.
            guard name != StoreDefaults.tenant else {
                throw CommandFailure("\(name) is the store every command uses without --tenant, and a server's own store on \(try place.placeDescription): it cannot be deleted. Empty it with `storekit tenants reset \(name)` instead.")
            }
            let tenants = try place.storageTenants()
            do throws(TenantError) {
                try await tenants.delete(name)
            } catch {
                throw CommandFailure(error.message)
            }
        }
        print("Deleted \(try place.location(of: name)): nothing of it is left.")
    }
}

/// `storekit tenants export`: everything a tenant holds, as one JSON document.
struct TenantsExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write everything a tenant holds as one JSON document: a backup, or a seed for `storekit tenants import`.",
        discussion: """
        The export holds the tenant's accounts, transactions, which device finished which, promoted purchases \
        waiting, subscriptions with their due dates, the notification outbox with delivery states, the clock's \
        offset and rate, and the next transaction identifier; not the catalog. It goes to standard output, or to \
        --out FILE (then a line says what it holds). With --server it is the server's export (GET \
        /control/tenants/{name}/export); without, the data directory's tenant.

        Example:
          storekit tenants export checkout-42 --out checkout.json --server http://127.0.0.1:8080
          storekit tenants export default --data-dir /tmp/store > default.json
        """
    )

    @Argument(help: ArgumentHelp("The tenant to export.", valueName: "name"))
    var name: String

    @Option(help: ArgumentHelp("Write the export to this file instead of standard output.", valueName: "file"))
    var out: String?

    @OptionGroup var place: TenantPlaceOptions

    func validate() throws {
        try validateTenantName(name)
    }

    func run() async throws {
        let data: Data
        let contents: TenantContents
        if let server = try place.serverWideControl() {
            data = try await server.send(.exportTenant, ["name": name])
            do {
                contents = TenantContents(try TenantSnapshot.makeDecoder().decode(TenantSnapshot.self, from: data))
            } catch {
                throw CommandFailure("The server's export of tenant \(name) is not one this storekit reads (\(error)). Are both the same version?")
            }
        } else {
            let snapshot = try await place.openStore(tenant: name).exportState()
            data = try TenantSnapshot.makeEncoder().encode(snapshot)
            contents = TenantContents(snapshot)
        }
        guard let out else {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
            return
        }
        do {
            try data.write(to: URL(fileURLWithPath: out), options: .atomic)
        } catch {
            throw CommandFailure("Cannot write the export to \(out): \(error.localizedDescription). Check that its folder exists and is writable.")
        }
        print("Exported \(try place.location(of: name)) to \(out): \(contents.text).")
    }
}

/// `storekit tenants import`: a tenant replaced by an export.
struct TenantsImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Replace everything a tenant holds with an export (restore a backup, seed a scenario), and say what it now holds.",
        discussion: """
        FILE is what `storekit tenants export` (or GET /control/tenants/{name}/export) wrote, from this server, \
        another, or a data directory. The tenant continues exactly where the exported one was: the same purchases, \
        subscriptions due at the same dates, the same notifications owed, the same clock. The catalog is not part \
        of an export: the tenant sells what it sold, so create it with the same configuration first \
        (`storekit tenants create NAME --config FILE`). The file is checked before anything changes; a file that \
        is not an export changes nothing.

        With --server it is imported into the server's tenant (PUT /control/tenants/{name}/import); without, into \
        the data directory's. Reading a large file shows a progress bar on standard error when it is a terminal \
        (--progress, --no-progress).

        Example:
          storekit tenants import replay checkout.json --server http://127.0.0.1:8080
          storekit tenants import scenario-1 checkout.json --data-dir /tmp/store --json
        """
    )

    @Argument(help: ArgumentHelp("The tenant to replace.", valueName: "name"))
    var name: String

    @Argument(help: ArgumentHelp("The export to import.", valueName: "file"))
    var file: String

    @OptionGroup var place: TenantPlaceOptions

    @Flag(inversion: .prefixedNo, help: "Show a progress bar on standard error while reading a large file (default: when it is a terminal).")
    var progress: Bool?

    @Flag(help: "Print what was imported as one JSON object.")
    var json = false

    /// What `--json` prints.
    private struct Output: Encodable {
        var name: String
        var imported: TenantContents
    }

    func validate() throws {
        try validateTenantName(name)
    }

    func run() async throws {
        let data = try readExport()
        let snapshot = try Self.snapshot(from: data, file: file)
        if let server = try place.serverWideControl() {
            _ = try await server.send(.importTenant, ["name": name], body: data)
        } else {
            try await place.openStore(tenant: name).importState(snapshot)
        }
        let imported = TenantContents(snapshot)
        if json {
            try printJSON(Output(name: name, imported: imported))
        } else {
            print("Imported \(file) into \(try place.location(of: name)), replacing what it held: \(imported.text).")
        }
    }

    /// The file's bytes, read in pieces with a progress bar when the file is large and progress is shown.
    private func readExport() throws -> Data {
        let url = URL(fileURLWithPath: file)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CommandFailure("No file at \(file). Give the path of a file `storekit tenants export NAME --out FILE` wrote.")
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw CommandFailure("Cannot read \(file): \(error.localizedDescription.withoutFinalPeriod). Check that it is a file you may read.")
        }
        defer { try? handle.close() }
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        let chunk = 1 << 20
        let bar = (progress ?? (isatty(STDERR_FILENO) == 1)) && size > 8 * chunk ? ProgressBar(title: "reading \(url.lastPathComponent)") : nil
        var data = Data(capacity: size)
        while let piece = try handle.read(upToCount: chunk), !piece.isEmpty {
            data.append(piece)
            bar?.show(fraction: Double(data.count) / Double(max(size, 1)), detail: "\(data.count >> 20) of \(size >> 20) MB")
        }
        bar?.finish()
        return data
    }

    /// The export in `data`; an error that says what is wrong with it when it is not one this version reads.
    static func snapshot(from data: Data, file: String) throws -> TenantSnapshot {
        /// The one field read first, so an export of another format says so rather than which field it lacks.
        struct Format: Decodable { var format: Int? }
        if let format = (try? JSONDecoder().decode(Format.self, from: data))?.format, format != TenantSnapshot.currentFormat {
            throw CommandFailure("\(file) is an export of format \(format); this storekit reads format \(TenantSnapshot.currentFormat). Export the tenant again with this version.")
        }
        do {
            return try TenantSnapshot.makeDecoder().decode(TenantSnapshot.self, from: data)
        } catch let error as DecodingError {
            throw CommandFailure("\(file) is not a tenant export: \(error.problem). Make one with `storekit tenants export NAME --out FILE`.")
        }
    }
}

extension DecodingError {
    /// What is wrong with the document, for people: the field and the problem, without the decoder's internals.
    var problem: String {
        func path(_ context: Context, _ last: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (last.map { [$0] } ?? [])
            return keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        }
        switch self {
        case .keyNotFound(let key, let context):
            return "it has no \"\(path(context, key))\" field"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "its \"\(path(context))\" field is not what an export holds (\(context.debugDescription.withoutFinalPeriod))"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "it is not JSON (\(context.debugDescription.withoutFinalPeriod))"
        case .dataCorrupted(let context):
            return "its \"\(path(context))\" field is not what an export holds (\(context.debugDescription.withoutFinalPeriod))"
        @unknown default:
            return "\(self)"
        }
    }
}

extension String {
    /// The text without the period that ends it, to be quoted inside a sentence.
    var withoutFinalPeriod: String {
        hasSuffix(".") ? String(dropLast()) : self
    }
}
