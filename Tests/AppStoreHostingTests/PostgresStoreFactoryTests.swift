import AppStoreEngine
import AppStoreFormats
import AppStoreHosting
import AppStorePostgres
import Foundation
import StoreKitConfiguration
import Testing

/// Choosing the database: a `postgres://` URL, given to the specification or in `OPENSTOREKIT_DATABASE_URL`, puts a
/// data directory's store in PostgreSQL; without one it stays in the directory's SQLite file.
@Suite("Opening stores on PostgreSQL")
struct PostgresStoreFactoryTests {
    init() { StoreFactory.registerTestDatabases() }

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-hosting-pg-\(UUID().uuidString)")
    let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/Demo.storekit")

    /// A schema of the test's own, and its URL.
    func withDatabase(_ body: (String) async throws -> Void) async throws {
        let configuration = try PostgresTestDatabase.freshConfiguration()
        defer {
            try? PostgresTestDatabase.dropSchema(of: configuration)
            try? FileManager.default.removeItem(at: directory)
        }
        try await body(PostgresTestDatabase.url(of: configuration))
    }

    // Skipped, visibly, without a server (`.ci/run` starts one): so is the next one.
    @Test(
        "A data directory's store given a PostgreSQL URL keeps its purchases in the database and its authority in the directory",
        .enabled(if: PostgresTestDatabase.isConfigured, "OPENSTOREKIT_TEST_POSTGRES_URL is unset: run export OPENSTOREKIT_TEST_POSTGRES_URL=$(bash .ci/postgres)")
    )
    func databaseURLSelectsPostgres() async throws {
        try await withDatabase { url in
            let configuration = try StoreKitConfigurationFile.load(contentsOf: demo)
            let location = StoreLocation.dataDirectory(StoreDataDirectory(url: directory))
            let seller = try StoreFactory.open(StoreSpecification(location: location, configuration: configuration, databaseURL: url), environment: [:])
            // Another server: a data directory of its own, the same database.
            let elsewhere = StoreLocation.dataDirectory(StoreDataDirectory(url: directory.appendingPathComponent("other-server")))
            let reader = try StoreFactory.open(StoreSpecification(location: elsewhere, databaseURL: url), environment: [:])
            let otherTenant = try StoreFactory.open(StoreSpecification(location: location, tenant: "other", databaseURL: url), environment: [:])

            let productID = try #require(await seller.catalog.products.first { $0.type == .nonConsumable }?.id)
            let bought = try await seller.purchase(PurchaseRequest(productID: productID, accountID: "ana", bundleID: "app"))
            #expect(try await reader.transaction(bought.id) == bought)
            #expect(try await otherTenant.transactions().isEmpty)
            #expect(!FileManager.default.fileExists(atPath: StoreDataDirectory(url: directory).databaseURL.path))
            _ = try seller.signer.certificateAuthority
            #expect(FileManager.default.fileExists(atPath: StoreDataDirectory(url: directory).certificateAuthorityURL.path))
        }
    }

    @Test(
        "Servers on one database sign with one certificate authority: the first one's, copied into the others' directories; a different one is refused",
        .enabled(if: PostgresTestDatabase.isConfigured, "OPENSTOREKIT_TEST_POSTGRES_URL is unset: run export OPENSTOREKIT_TEST_POSTGRES_URL=$(bash .ci/postgres)")
    )
    func certificateAuthorityIsShared() async throws {
        try await withDatabase { url in
            let configuration = try StoreKitConfigurationFile.load(contentsOf: demo)
            func store(in name: String) throws -> StoreEngine {
                let location = StoreLocation.dataDirectory(StoreDataDirectory(url: directory.appendingPathComponent(name)))
                return try StoreFactory.open(StoreSpecification(location: location, configuration: configuration, databaseURL: url), environment: [:])
            }
            // The first server's directory already has an authority (devices may trust its root): that one is shared.
            let firstAuthority = try CertificateAuthority.loadOrCreate(in: StoreDataDirectory(url: directory.appendingPathComponent("first")).certificateAuthorityURL)
            let first = try store(in: "first")
            let second = try store(in: "second")

            let productID = try #require(await first.catalog.products.first { $0.type == .consumable }?.id)
            let purchase = PurchaseRequest(productID: productID, accountID: "ana", bundleID: "com.example.demo")
            let boughtFromFirst = try await first.purchase(purchase)
            let boughtFromSecond = try await second.purchase(purchase)
            #expect(try first.signer.certificateAuthority.rootCertificatesDER == firstAuthority.rootCertificatesDER)
            #expect(try second.signer.certificateAuthority.rootCertificatesDER == firstAuthority.rootCertificatesDER)
            let copied = try CertificateAuthority.load(from: StoreDataDirectory(url: directory.appendingPathComponent("second")).certificateAuthorityURL)
            #expect(copied.rootCertificatesDER == firstAuthority.rootCertificatesDER)
            let verifier = try JWSVerifier(rootCertificates: firstAuthority.rootCertificatesDER, bundleID: "com.example.demo")
            for token in [try first.signedTransaction(boughtFromFirst), try second.signedTransaction(boughtFromSecond)] {
                if case .failure(let failure) = await verifier.verifyTransaction(token) { Issue.record("\(failure)") }
            }

            // A third server whose directory holds an authority of its own signs nothing rather than another root.
            let thirdDirectory = StoreDataDirectory(url: directory.appendingPathComponent("third")).certificateAuthorityURL
            _ = try CertificateAuthority.loadOrCreate(in: thirdDirectory)
            let third = try store(in: "third")
            let bought = try await third.purchase(purchase)
            #expect {
                _ = try third.signedTransaction(bought)
            } throws: { error in
                let message = (error as? StoreError)?.message ?? ""
                return message.contains(thirdDirectory.path) && message.contains("Move that directory away")
            }
        }
    }

    @Test(
        "OPENSTOREKIT_DATABASE_URL puts a data directory's store in PostgreSQL, and a moved tenant clock is seen by the next store opened",
        .enabled(if: PostgresTestDatabase.isConfigured, "OPENSTOREKIT_TEST_POSTGRES_URL is unset: run export OPENSTOREKIT_TEST_POSTGRES_URL=$(bash .ci/postgres)")
    )
    func environmentSelectsPostgres() async throws {
        try await withDatabase { url in
            let environment = [EnvironmentVariables.databaseURL: url]
            let specification = StoreSpecification(location: .dataDirectory(StoreDataDirectory(url: directory)), clock: SystemClock())
            let store = try StoreFactory.open(specification, environment: environment)
            try await store.advanceClock(by: 86_400)
            let reopened = try StoreFactory.open(specification, environment: environment)
            #expect(try await reopened.clockState().offset == 86_400)
            #expect(!FileManager.default.fileExists(atPath: StoreDataDirectory(url: directory).databaseURL.path))
            // Without the variable, the same directory's store is the SQLite one: a clock never moved.
            let sqlite = try StoreFactory.open(specification, environment: [:])
            #expect(try await sqlite.clockState().offset == 0)
            #expect(FileManager.default.fileExists(atPath: StoreDataDirectory(url: directory).databaseURL.path))
        }
    }

    @Test("A database URL that cannot be reached fails the open with a message naming the database, not its password")
    func unreachableDatabase() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = "postgres://store:secret-password@127.0.0.1:1/store"
        #expect {
            _ = try StoreFactory.open(StoreSpecification(location: .dataDirectory(StoreDataDirectory(url: directory)), databaseURL: url), environment: [:])
        } throws: { error in
            let message = (error as? StoreError)?.message ?? ""
            return message.contains("postgres://store@127.0.0.1:1/store") && !message.contains("secret-password")
        }
    }

    @Test("An OPENSTOREKIT_DATABASE_URL that is not a PostgreSQL URL is refused, with how to go back to SQLite")
    func environmentWithAnotherURL() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect {
            _ = try StoreFactory.open(
                StoreSpecification(location: .dataDirectory(StoreDataDirectory(url: directory))),
                environment: [EnvironmentVariables.databaseURL: "mysql://store@db/store"]
            )
        } throws: { error in
            let message = (error as? StoreError)?.message ?? ""
            return message.contains(EnvironmentVariables.databaseURL) && message.contains("postgres://") && message.contains("unset it")
        }
    }

    @Test("A store in memory refuses a database URL rather than ignore it")
    func memoryRefusesDatabase() {
        #expect(throws: StoreError.self) {
            _ = try StoreFactory.open(StoreSpecification(location: .memory, databaseURL: "postgres://store@localhost/store"), environment: [:])
        }
    }

    @Test("A store in memory ignores OPENSTOREKIT_DATABASE_URL: tests stay in memory whatever the shell says")
    func memoryIgnoresEnvironment() throws {
        let store = try StoreFactory.open(StoreSpecification(location: .memory), environment: [EnvironmentVariables.databaseURL: "postgres://store@127.0.0.1:1/store"])
        #expect(store.tenantID == StoreDefaults.tenant)
    }
}
