import AppStoreEngine
import AppStorePostgres
import Testing

/// `postgres://` URLs read as `psql` reads them, and the ones that cannot be used say why.
@Suite("PostgreSQL URLs")
struct PostgresConfigurationTests {
    @Test("A full URL gives host, port, user, password, database, TLS mode and schema")
    func fullURL() throws {
        let configuration = try PostgresStorage.Configuration(
            url: "postgres://store:s%40cret%3A@db.example.com:6432/staging?sslmode=verify-full&options=-c%20search_path%3Dteam_a%20-c%20statement_timeout%3D5s&application_name=ci&connect_timeout=3"
        )
        #expect(configuration.host == "db.example.com")
        #expect(configuration.port == 6432)
        #expect(configuration.username == "store")
        #expect(configuration.password == "s@cret:")
        #expect(configuration.database == "staging")
        #expect(configuration.tls == .verifyFull)
        #expect(configuration.schema == "team_a")
        #expect(configuration.serverSettings == ["statement_timeout": "5s"])
        #expect(configuration.applicationName == "ci")
        #expect(configuration.connectTimeout == .seconds(3))
    }

    @Test("Left out, the port is 5432, the database is the user's, TLS is preferred and the schema is the default")
    func defaults() throws {
        let configuration = try PostgresStorage.Configuration(url: "postgresql://ana@localhost")
        #expect(configuration == PostgresStorage.Configuration(host: "localhost", port: 5432, username: "ana", database: "ana", tls: .prefer))
        #expect(configuration.password == nil)
        #expect(configuration.schema == nil)
    }

    @Test("A host parameter that is a directory connects through the server's Unix socket")
    func unixSocket() throws {
        let configuration = try PostgresStorage.Configuration(url: "postgres://postgres@/store?host=/var/run/postgresql")
        #expect(configuration.host == "/var/run/postgresql")
        #expect(configuration.database == "store")
        #expect(configuration.description == "postgres://postgres@/var/run/postgresql (socket):5432/store")
    }

    @Test("The description names the database and schema, never the password")
    func descriptionHidesPassword() throws {
        let configuration = try PostgresStorage.Configuration(url: "postgres://store:hunter2@10.0.0.5/db?options=-csearch_path%3Dteam")
        #expect(configuration.description == "postgres://store@10.0.0.5:5432/db (schema team)")
    }

    @Test(
        "A URL that cannot be used is refused with what is wrong and how it should read, without its password",
        arguments: [
            ("mysql://u:pw@h/db", "must start with postgres:// or postgresql://"),
            ("postgres://h/db", "names no user"),
            ("postgres://u:pw@h/db/extra", "more than one part"),
            ("postgres://u:pw@h/db?sslmode=always", "use one of disable, prefer, require, verify-ca, verify-full"),
            ("postgres://u:pw@h/db?pool=4", "the parameter \"pool\""),
            ("postgres://u:pw@h/db?options=search_path%3Dx", "-c NAME=VALUE"),
            ("postgres://u:pw@h/db?options=-c%20search_path%3Da,b", "name the one schema"),
            ("postgres://u:pw@h/db?connect_timeout=soon", "a whole number of seconds"),
        ]
    )
    func refusedURLs(url: String, problem: String) {
        #expect {
            _ = try PostgresStorage.Configuration(url: url)
        } throws: { error in
            let message = (error as? StoreError)?.message ?? ""
            return message.contains(problem) && message.contains("postgres://USER:PASSWORD@HOST:PORT/DATABASE") && !message.contains("pw@")
        }
    }

    @Test("Only postgres:// and postgresql:// URLs are PostgreSQL URLs")
    func recognizesURLs() {
        #expect(PostgresStorage.Configuration.isPostgresURL("postgres://u@h/db"))
        #expect(PostgresStorage.Configuration.isPostgresURL("POSTGRESQL://u@h/db"))
        #expect(!PostgresStorage.Configuration.isPostgresURL("/var/lib/store.sqlite"))
        #expect(!PostgresStorage.Configuration.isPostgresURL("sqlite:///tmp/store"))
    }
}
