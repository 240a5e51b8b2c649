// dump_signatures.cpp -- prints every signature of Stan 2.21's library, as
// stanc2 (the Stan compiler inside rstan 2.21) registers them, one per line:
// name <TAB> return type <TAB> argument types separated by semicolons.
//
// Built by tools/stan221/signatures.sh against StanHeaders' copy of stanc2's
// sources (src/stan/lang), with function_signatures.hpp's private members
// made public so the table can be read. A development tool only: tapestry
// itself has no C++.
#include <stan/lang/ast_def.cpp>
#include <iostream>
int main() {
  using namespace stan::lang;
  function_signatures& fs = function_signatures::instance();
  for (const auto& kv : fs.sigs_map_)
    for (const auto& sig : kv.second) {
      std::cout << kv.first << "\t" << sig.first << "\t";
      for (size_t i = 0; i < sig.second.size(); ++i) std::cout << (i ? ";" : "") << sig.second[i];
      std::cout << "\n";
    }
  return 0;
}
