{
  "targets": [
    {
      "target_name": "e5",
      "sources": ["addon.c", "e5.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-O3", "-std=gnu11", "-Wno-unknown-pragmas", "-Wno-unused-parameter"],
      "xcode_settings": { "OTHER_CFLAGS": ["-O3", "-std=gnu11", "-Wno-unknown-pragmas"] },
      "msvs_settings": { "VCCLCompilerTool": { "Optimization": 2 } }
    }
  ]
}
