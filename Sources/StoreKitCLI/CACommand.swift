import AppStoreFormats
import AppStoreHosting
import ArgumentParser
import Foundation
import AppStoreEngine

/// `storekit ca …`: the store's certificate authority.
struct CACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Manage the store's certificate authority (the roots that verify its receipts and JWS).",
        discussion: """
            The store signs JWS and receipts with its own chains, created on first use in <data-dir>/ca/.
            Export the roots to verify what it signs with Apple's libraries or OpenSSL.

            Examples:
              storekit ca export > roots.pem
              storekit ca export --der --out root.cer
            """,
        subcommands: [Export.self]
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

                Examples:
                  storekit ca export > roots.pem
                  storekit ca export --data-dir ./store --root jws --out jws-root.pem
                  storekit ca export --der --out root.cer
                """
        )

        @Option(name: .customLong("data-dir"), help: "The store's data directory (default: $OPENSTOREKIT_DATA_DIR, else $XDG_DATA_HOME/openstorekit, else ~/.local/share/openstorekit).")
        var dataDirectory: String?

        @Option(help: "Which root to export: all, jws or receipt.")
        var root: RootChoice = .all

        @Flag(help: "Write DER instead of PEM (needs --out).")
        var der = false

        @Option(help: "Write to this file instead of standard output.")
        var out: String?

        enum RootChoice: String, ExpressibleByArgument, CaseIterable {
            case all, jws, receipt
        }

        func run() async throws {
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
