# text2c.awk: a text file as a C string constant named by -v name=NAME,
# so that the HTML page's style and code live in files of their own.
BEGIN { printf "static const char %s[] =\n", name }
{
  gsub(/\\/, "\\\\\\\\")
  gsub(/"/, "\\\"")
  printf "\"%s\\n\"\n", $0
}
END { print ";" }
