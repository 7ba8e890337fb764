// graph_tool.hpp: API. The tool_spec (bam/harness/tool_main.hpp) of bfs and cc: their own flags
// (--graph, --access, --source, --sources, --dump-levels / --dump-components), the backends
// (host and nvme: CPU threads; emulated: GPU threads, CUDA builds), the checks of each point
// before anything runs (the graph loads, its sources exist, the access mode suits the backend)
// and the report's extra CSV columns and summary lines.
#pragma once
#include "bam/harness/tool_main.hpp"
#include "graph_run.hpp"

namespace bam::apps {

tool_spec graph_tool_spec(graph_algorithm a);

}  // namespace bam::apps
