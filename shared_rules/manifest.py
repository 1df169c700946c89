metadata(version="0.1.0", description="Rules of Bawo, Oware and Bagh-Chal")
package("shared_rules", base_path="..")
