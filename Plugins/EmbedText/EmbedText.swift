import Foundation
import PackagePlugin

/// Compiles text files into their module: each `*.json` file at the top of a target's directory (excluded from its
/// sources in Package.swift) becomes a `static let` on the type named after the file — `ControlAPI.json` becomes
/// `ControlAPIDocument.json`, the file's text.
@main
struct EmbedTextPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let directory = target.directoryURL
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let tool = try context.tool(named: "EmbedTextTool").url
        return files.map { file in
            let name = file.deletingPathExtension().lastPathComponent
            let output = context.pluginWorkDirectoryURL.appending(path: "\(name)+Embedded.swift")
            return .buildCommand(
                displayName: "Embedding \(file.lastPathComponent) in \(target.name)",
                executable: tool,
                arguments: [file.path, output.path, "\(name)Document", file.pathExtension],
                inputFiles: [file],
                outputFiles: [output]
            )
        }
    }
}
