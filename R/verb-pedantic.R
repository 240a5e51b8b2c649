# stanc's pedantic mode (its warnings' wording), from the parser's tree and
# the checker's tables.
pedantic_warnings <- function(code, name = "string") {
  character()
}
