import AppStoreFormats
import AppStoreHosting
import AppStoreServer
import ArgumentParser
import Foundation
import AppStoreEngine

/// `storekit ca …`: the store's certificate authority.
struct CACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Manage the store's certificate authorities: the roots that verify what it signs, and its TLS root.",
        discussion: """
            The store signs JWS and receipts with its own chains, created on first use in <data-dir>/ca/.
            Export the roots to verify what it signs with Apple's libraries or OpenSSL.

            Its HTTPS listener (storekit serve --https-port) presents a certificate from a separate TLS root, in
            <data-dir>/tls/: trusting one root never means trusting the other. `storekit ca env` prints what a
            backend's machine needs to reach the store at Apple's own addresses.

            Examples:
              storekit ca export > roots.pem
              storekit ca export --der --out root.cer
              storekit ca export --tls > tls-root.pem
              eval "$(storekit ca env)"
            """,
        subcommands: [Export.self, Env.self]
    )

    /// `storekit ca export`: prints or writes the root certificates.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Print the store's root certificates (creating the authority on first use).",
            discussion: """
                Prints both roots as one PEM bundle: the JWS root first (give it to Apple's SignedDataVerifier),
                then the receipt root (for PKCS#7 receipts). The authority lives in <data-dir>/ca/ and is
                created there the first time it is needed.

                With --der, writes DER files: the JWS root to FILE and the receipt root to FILE with
                "-receipt" before its extension (or only the root chosen with --root).

                With --tls, prints the TLS root instead: what HTTPS clients trust to reach storekit serve
                --https-port. It verifies nothing the store signs, and the signing roots verify no TLS server.

                Examples:
                  storekit ca export > roots.pem
                  storekit ca export --tls > tls-root.pem
                  storekit ca export --data-dir ./store --root jws --out jws-root.pem
                  storekit ca export --der --out root.cer
                """
        )

        @Option(name: .customLong("data-dir"), help: "The store's data directory (default: $OPENSTOREKIT_DATA_DIR, else $XDG_DATA_HOME/openstorekit, else ~/.local/share/openstorekit).")
        var dataDirectory: String?

        @Option(help: "Which root to export: all, jws or receipt.")
        var root: RootChoice = .all

        @Flag(help: "Export the TLS root (<data-dir>/tls/) that HTTPS clients trust, instead of the signing roots.")
        var tls = false

        @Flag(help: "Write DER instead of PEM (needs --out).")
        var der = false

        @Option(help: "Write to this file instead of standard output.")
        var out: String?

        enum RootChoice: String, ExpressibleByArgument, CaseIterable {
            case all, jws, receipt
        }

        func run() async throws {
            if tls {
                try exportTLSRoot()
                return
            }
            let authority: CertificateAuthority
            do {
                authority = try StoreDataDirectory.resolve(explicit: dataDirectory).signer.certificateAuthority
            } catch {
                throw FormatsCLI.failure("\(error)")
            }
            let roots: [Data] =
                switch root {
                case .all: authority.rootCertificatesDER
                case .jws: [authority.jwsRootCertificateDER]
                case .receipt: [authority.receiptRootCertificateDER]
                }
            if der {
                guard let out else {
                    throw FormatsCLI.failure("--der writes binary files; add --out FILE.")
                }
                let outURL = URL(fileURLWithPath: out)
                var targets = [(outURL, roots[0])]
                if roots.count == 2 {
                    let base = outURL.deletingPathExtension().lastPathComponent + "-receipt"
                    let ext = outURL.pathExtension
                    let receiptURL = outURL.deletingLastPathComponent()
                        .appendingPathComponent(ext.isEmpty ? base : base + "." + ext)
                    targets.append((receiptURL, roots[1]))
                }
                for (url, bytes) in targets {
                    try bytes.write(to: url)
                    print("wrote \(url.path)")
                }
                return
            }
            let pem = roots.map { FormatsCLI.pemCertificate($0) }.joined()
            if let out {
                try Data(pem.utf8).write(to: URL(fileURLWithPath: out))
            } else {
                print(pem, terminator: "")
            }
        }
    }
}

extension CACommand {
    /// `storekit ca env`: what a backend's machine needs to reach the store at Apple's own addresses.
    struct Env: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "env",
            abstract: "Print the hosts line and the trust variables a backend needs to reach the store at Apple's addresses.",
            discussion: """
                A backend whose code calls https://api.storekit-sandbox.apple.com (Apple's server libraries) or
                https://sandbox.itunes.apple.com/verifyReceipt reaches `storekit serve --https-port 443` unchanged
                once two things hold on its machine: Apple's hosts resolve to the store (a hosts line), and the
                store's TLS root is trusted. This command prints both, making the root on first use.

                The variables point each ecosystem at <data-dir>/tls/trust-bundle.pem, which this command writes:
                the system's trusted roots followed by the store's TLS root, so the rest of the backend's HTTPS
                traffic keeps working. Node.js adds NODE_EXTRA_CA_CERTS to its own roots; Java and Swift read
                the system's store, so the output says the one command that adds the root there.

                --format dotenv prints NAME=value lines for GitHub Actions ($GITHUB_ENV), `docker run
                --env-file` and Compose's env_file. --hosts prints only the hosts line, for /etc/hosts, Docker's
                --add-host (with --format docker) or Kubernetes' hostAliases.

                Examples:
                  eval "$(storekit ca env)"
                  storekit ca env --hosts | sudo tee -a /etc/hosts
                  storekit ca env --format dotenv >> "$GITHUB_ENV"
                  docker run $(storekit ca env --hosts --format docker --address host-gateway) my-backend
                """
        )

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case shell, dotenv, docker
        }

        @Option(name: .customLong("data-dir"), help: StoreLocationOptions.dataDirectoryHelp)
        var dataDirectory: String?

        @Flag(help: "Print only the hosts line: Apple's hosts at --address.")
        var hosts = false

        @Option(help: "The address Apple's hosts should resolve to: where storekit serve listens; 127.0.0.1 unless given.")
        var address = "127.0.0.1"

        @Option(help: "shell (export lines, the default), dotenv (NAME=value lines) or docker (--add-host flags, with --hosts).")
        var format: Format = .shell

        func validate() throws {
            if format == .docker && !hosts {
                throw ValidationError("--format docker prints --add-host flags; add --hosts. For variables use shell or dotenv.")
            }
        }

        func run() async throws {
            if hosts {
                switch format {
                case .docker: print(AppleHosts.all.map { "--add-host=\($0):\(address)" }.joined(separator: " "))
                case .shell, .dotenv: print(([address] + AppleHosts.all).joined(separator: " "))
                }
                return
            }
            let directory = StoreDataDirectory.resolve(explicit: dataDirectory).tlsURL
            let root = directory.appendingPathComponent(TLSAuthority.FileName.root)
            let bundle = directory.appendingPathComponent("trust-bundle.pem")
            let systemBundle: URL?
            do {
                let authority = try TLSAuthority.loadOrCreateRoot(in: directory, now: SystemClock().now())
                systemBundle = Self.systemBundles.first { FileManager.default.isReadableFile(atPath: $0.path) }
                let system = try systemBundle.map { try String(contentsOf: $0, encoding: .utf8) } ?? ""
                let separator = system.isEmpty || system.hasSuffix("\n") ? "" : "\n"
                try Data((system + separator + authority.rootPEM).utf8).write(to: bundle, options: .atomic)
            } catch let error as TLSAuthorityError {
                throw FormatsCLI.failure(error.message)
            } catch {
                throw FormatsCLI.failure("Cannot write \(bundle.path): \(error.localizedDescription). Check that the data directory is writable.")
            }
            let variables: [(name: String, value: String, readBy: String)] = [
                ("OPENSTOREKIT_TLS_ROOT", root.path, "the store's TLS root alone"),
                ("SSL_CERT_FILE", bundle.path, "OpenSSL, Go, Ruby, Python's ssl module"),
                ("REQUESTS_CA_BUNDLE", bundle.path, "Python's requests: Apple's Python library"),
                ("CURL_CA_BUNDLE", bundle.path, "curl"),
                ("NODE_EXTRA_CA_CERTS", root.path, "Node.js, besides its own roots"),
            ]
            switch format {
            case .dotenv:
                for variable in variables { print("\(variable.name)=\(variable.value)") }
            case .shell, .docker:
                print("# OpenStoreKit at Apple's addresses: storekit serve --https-port 443, and on the backend's machine:")
                print("# 1. Hosts, once per machine or container: storekit ca env --hosts | sudo tee -a /etc/hosts")
                print("#      \(([address] + AppleHosts.all).joined(separator: " "))")
                print("# 2. Trust, in this shell (\(systemBundle.map { "the bundle is \($0.path) and the store's root" } ?? "no system bundle found: the bundle is the store's root alone")):")
                for variable in variables {
                    print("export \(variable.name)=\(Self.quoted(variable.value))    # \(variable.readBy)")
                }
                print("# Java, once per JDK: keytool -importcert -noprompt -trustcacerts -cacerts -storepass changeit -alias openstorekit -file \(Self.quoted(root.path))")
                print("# Swift (AsyncHTTPClient, URLSession) and the system's store, on Debian or Ubuntu: sudo cp \(Self.quoted(root.path)) /usr/local/share/ca-certificates/openstorekit.crt && sudo update-ca-certificates")
            }
        }

        /// Where distributions keep the system's trusted roots as one PEM file.
        static let systemBundles = [
            "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem",
        ].map { URL(fileURLWithPath: $0) }

        /// `text` in single quotes, safe to paste into a POSIX shell.
        static func quoted(_ text: String) -> String {
            "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
    }
}

extension CACommand.Export {
    /// Prints or writes the TLS root, making it on first use.
    private func exportTLSRoot() throws {
        let directory = StoreDataDirectory.resolve(explicit: dataDirectory).tlsURL
        let authority: TLSAuthority
        do {
            authority = try TLSAuthority.loadOrCreateRoot(in: directory, now: SystemClock().now())
        } catch {
            throw FormatsCLI.failure(error.message)
        }
        let pem = try authority.rootPEM
        if der {
            guard let out else { throw FormatsCLI.failure("--der writes a binary file; add --out FILE.") }
            try Data(try authority.rootDER).write(to: URL(fileURLWithPath: out))
            print("wrote \(out)")
        } else if let out {
            try Data(pem.utf8).write(to: URL(fileURLWithPath: out))
        } else {
            print(pem, terminator: "")
        }
    }
}

/// Helpers shared by the formats commands (`ca`, `receipt`, `jws`, `bench`).
enum FormatsCLI {
    /// A DER certificate as a PEM block.
    static func pemCertificate(_ der: Data) -> String {
        let body = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }

    /// Reads certificates from a PEM file (any number of blocks) or a DER file.
    static func readCertificates(path: String) throws -> [Data] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN CERTIFICATE-----") else {
            return [data]
        }
        var certificates: [Data] = []
        var body: String?
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("-----BEGIN CERTIFICATE-----") {
                body = ""
            } else if line.hasPrefix("-----END CERTIFICATE-----") {
                if let body, let der = Data(base64Encoded: body) { certificates.append(der) }
                body = nil
            } else if body != nil {
                body! += line.trimmingCharacters(in: .whitespaces)
            }
        }
        return certificates
    }

    /// Prints `message` to standard error and returns exit status 1 to throw.
    static func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        return ExitCode(1)
    }
}
